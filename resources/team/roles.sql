-- SPDX-License-Identifier: Apache-2.0
-- Roles for a Holdpoint team (core/team/TEAM.md "Roles").
--
--   psql -d holdpoint -f resources/team/roles.sql
--
-- Run it as the database's owner, before or after `holdpoint-ctl team init`:
-- each grants what it can, so the order does not matter, and running it
-- again changes nothing.
--
-- holdpoint_gateway: agent hosts. May put escalations in the queue, end its
--   own items with a deny (the agent cancelled or went away), time out items
--   past their deadline, copy its records to the team audit, and read
--   everything. It may not decide.
-- holdpoint_reviewer: reviewers' consoles. Everything a gateway may do (a
--   console's own agents escalate too), and decide, claim and release items.
--
-- Neither may write a table directly: every change goes through the schema's
-- functions, which keep the audit chain. Give people and hosts login roles
-- that are members, e.g.
--
--   CREATE ROLE ci_runner_7 LOGIN IN ROLE holdpoint_gateway;
--   CREATE ROLE alice LOGIN IN ROLE holdpoint_reviewer;
--   \password alice

DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'holdpoint_gateway') THEN
        CREATE ROLE holdpoint_gateway NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'holdpoint_reviewer') THEN
        CREATE ROLE holdpoint_reviewer NOLOGIN;
    END IF;
    IF to_regproc('holdpoint.grant_roles') IS NOT NULL THEN
        PERFORM holdpoint.grant_roles();
    END IF;
END
$$;
