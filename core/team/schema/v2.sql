-- SPDX-License-Identifier: Apache-2.0
-- Team schema version 2 (TEAM.md "Schema"): each instance publishes its
-- agent sessions, so every console's Agents view shows the whole team; and
-- a gateway's loop findings for a turn, and whether an item's agent is
-- connected, follow its pending items.

CREATE FUNCTION holdpoint.is_json_array(p text) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN json_typeof(p::json) = 'array';
EXCEPTION WHEN invalid_text_representation THEN
    RETURN false;
END
$$;

ALTER TABLE holdpoint.instances
    ADD COLUMN agents text NOT NULL DEFAULT '[]'
        CHECK (octet_length(agents) <= 1048576 AND holdpoint.is_json_array(agents));
-- Findings newer than those in `item`, as a JSON array; NULL: none since.
ALTER TABLE holdpoint.items
    ADD COLUMN turn_findings text
        CHECK (octet_length(turn_findings) <= 1048576 AND holdpoint.is_json_array(turn_findings));

-- Whether the agent waiting for the item is connected to its gateway now;
-- NULL: as when it was escalated (in `item`).
ALTER TABLE holdpoint.items ADD COLUMN agent_connected boolean;

-- A gateway's agent dropped or came back while its item waits.
CREATE FUNCTION holdpoint.set_agent_connected(p_gateway text, p_id text, p_connected boolean)
    RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    UPDATE holdpoint.items i SET agent_connected = p_connected
     WHERE i.id = p_id AND i.gateway = p_gateway AND i.state = 'pending'
       AND i.agent_connected IS DISTINCT FROM p_connected;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    PERFORM pg_notify('holdpoint', 'agent ' || p_id);
    RETURN true;
END
$$;

-- A gateway's current loop findings for one of its turns, onto its pending
-- items of that turn; each one changed is announced. Returns how many.
CREATE FUNCTION holdpoint.set_turn_findings(p_gateway text, p_session text, p_turn text, p_findings text)
    RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r record;
    n integer := 0;
BEGIN
    IF p_findings IS NULL OR NOT holdpoint.is_json_array(p_findings) THEN
        RAISE EXCEPTION 'findings must be a JSON array' USING ERRCODE = '22023';
    END IF;
    FOR r IN UPDATE holdpoint.items i SET turn_findings = p_findings
              WHERE i.gateway = p_gateway AND i.session_id = p_session
                AND i.turn_id IS NOT DISTINCT FROM p_turn AND i.state = 'pending'
              RETURNING i.id
    LOOP
        PERFORM pg_notify('holdpoint', 'findings ' || r.id);
        n := n + 1;
    END LOOP;
    RETURN n;
END
$$;

-- An instance's agent sessions, as a JSON array of objects, replacing what
-- it published before. Sent with every heartbeat.
CREATE FUNCTION holdpoint.publish_agents(p_id text, p_agents text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_agents IS NULL OR NOT holdpoint.is_json_array(p_agents) THEN
        RAISE EXCEPTION 'agents must be a JSON array' USING ERRCODE = '22023';
    END IF;
    UPDATE holdpoint.instances SET agents = p_agents WHERE id = p_id;
END
$$;
