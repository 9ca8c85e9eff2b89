-- SPDX-License-Identifier: Apache-2.0
-- What resources/team/roles.sql's roles may do, when they exist: the one
-- definition of grant_roles(). The migrator applies this file after the
-- versions of every migration (a new schema or an upgrade), in the same
-- transaction, and then runs it; roles.sql runs it when the schema is
-- already there, so the order of the two does not matter. The versions'
-- files define no grants of their own: whatever version a database came
-- from, it ends with the privileges below (tst_team_privileges checks them
-- for every function of the schema and every role).

CREATE OR REPLACE FUNCTION holdpoint.grant_roles() RETURNS void
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    role_name text;
BEGIN
    REVOKE ALL ON ALL FUNCTIONS IN SCHEMA holdpoint FROM PUBLIC;
    -- What every instance may do: a reviewer's console has agents of its own.
    FOREACH role_name IN ARRAY ARRAY['holdpoint_gateway', 'holdpoint_reviewer'] LOOP
        CONTINUE WHEN NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = role_name);
        EXECUTE format('GRANT USAGE ON SCHEMA holdpoint TO %I', role_name);
        EXECUTE format('GRANT SELECT ON holdpoint.schema_version, holdpoint.schema_versions, holdpoint.instances,'
                       ' holdpoint.items, holdpoint.audit, holdpoint.audit_head, holdpoint.votes, holdpoint.reviewers,'
                       ' holdpoint.reviewer_logins TO %I', role_name);
        EXECUTE format('GRANT EXECUTE ON FUNCTION holdpoint.heartbeat(text, text, text, text, text, bigint),'
                       ' holdpoint.heartbeat(text, text, text, text, text, bigint, integer),'
                       ' holdpoint.escalate(text, text, text, text, text, text, text, text, bigint, text),'
                       ' holdpoint.escalate_batch(text, text, text[], text[], text[], text[], text[], text[],'
                       '                          bigint[], text[]),'
                       ' holdpoint.withdraw(text, text, text, text, text, text),'
                       ' holdpoint.expire_due(text),'
                       ' holdpoint.append_audit(text, text[], text[]),'
                       ' holdpoint.append_audit_once(text, text, bigint, text[], text[]),'
                       ' holdpoint.ts_text(timestamptz),'
                       ' holdpoint.heartbeat_stale(),'
                       ' holdpoint.per_item_window(),'
                       ' holdpoint.publish_agents(text, text),'
                       ' holdpoint.set_turn_findings(text, text, text, text),'
                       ' holdpoint.set_agent_connected(text, text, boolean) TO %I', role_name);
    END LOOP;
    -- Deciding is the reviewer's alone.
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'holdpoint_reviewer') THEN
        GRANT EXECUTE ON FUNCTION holdpoint.review(text, text, text, text, text, text, text, text),
                                  holdpoint.reviewer_for_login(text),
                                  holdpoint.claim(text, text, text, bigint),
                                  holdpoint.release(text, text)
              TO holdpoint_reviewer;
    END IF;
END
$$;
