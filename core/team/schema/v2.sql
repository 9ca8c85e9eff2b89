-- Team schema version 2: each instance publishes its agent sessions, so
-- every console's Agents view shows the whole team (TEAM.md "Schema").

ALTER TABLE holdpoint.instances
    ADD COLUMN agents text NOT NULL DEFAULT '[]' CHECK (octet_length(agents) <= 1048576);

-- An instance's agent sessions, as a JSON array of objects, replacing what
-- it published before. Sent with every heartbeat.
CREATE FUNCTION holdpoint.publish_agents(p_id text, p_agents text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_agents IS NULL OR jsonb_typeof(p_agents::jsonb) IS DISTINCT FROM 'array' THEN
        RAISE EXCEPTION 'agents must be a JSON array' USING ERRCODE = '22023';
    END IF;
    UPDATE holdpoint.instances SET agents = p_agents WHERE id = p_id;
END
$$;

-- Grants what resources/team/roles.sql's roles may do, when they exist.
-- The migrator runs this after every migration, and roles.sql runs it when
-- the schema is already there, so the order of the two does not matter.
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
        EXECUTE format('GRANT SELECT ON holdpoint.schema_version, holdpoint.instances, holdpoint.items,'
                       ' holdpoint.audit, holdpoint.audit_head TO %I', role_name);
        EXECUTE format('GRANT EXECUTE ON FUNCTION holdpoint.heartbeat(text, text, text, text, text, bigint),'
                       ' holdpoint.escalate(text, text, text, text, text, text, text, text, bigint, text),'
                       ' holdpoint.withdraw(text, text, text, text, text, text, text),'
                       ' holdpoint.expire_due(text),'
                       ' holdpoint.append_audit(text, text[], text[]),'
                       ' holdpoint.ts_text(timestamptz),'
                       ' holdpoint.heartbeat_stale(),'
                       ' holdpoint.publish_agents(text, text) TO %I', role_name);
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
