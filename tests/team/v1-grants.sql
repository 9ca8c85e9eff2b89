-- SPDX-License-Identifier: Apache-2.0
-- A database as a holdpoint that knew only team schema version 1 left it:
-- applied after core/team/schema/v1.sql by tst_teamdb, since the grants of
-- every version now live in one file (core/team/schema/grants.sql) that
-- names functions version 1 did not have. This is version 1's own
-- grant_roles(), as that version shipped it.

CREATE FUNCTION holdpoint.grant_roles() RETURNS void
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
        EXECUTE format('GRANT SELECT ON holdpoint.schema_version, holdpoint.instances, holdpoint.items,'
                       ' holdpoint.audit, holdpoint.audit_head TO %I', role_name);
        EXECUTE format('GRANT EXECUTE ON FUNCTION holdpoint.heartbeat(text, text, text, text, text, bigint),'
                       ' holdpoint.escalate(text, text, text, text, text, text, text, text, bigint, text),'
                       ' holdpoint.withdraw(text, text, text, text, text, text, text),'
                       ' holdpoint.expire_due(text),'
                       ' holdpoint.append_audit(text, text[], text[]),'
                       ' holdpoint.ts_text(timestamptz),'
                       ' holdpoint.heartbeat_stale() TO %I', role_name);
    END LOOP;
    -- Deciding is the reviewer's alone.
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'holdpoint_reviewer') THEN
        GRANT EXECUTE ON FUNCTION holdpoint.decide(text, text, text, text, text, text, text),
                                  holdpoint.claim(text, text, text, bigint),
                                  holdpoint.release(text, text)
              TO holdpoint_reviewer;
    END IF;
END
$$;
