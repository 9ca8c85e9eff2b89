-- SPDX-License-Identifier: Apache-2.0
-- Team schema, version 1 (TEAM.md has the tables and the guarantees).
-- Applied by holdpoint's migrator inside one transaction under an advisory
-- lock, never by hand. Every state change goes through a function below, so
-- the database itself enforces who may do what (resources/team/roles.sql).

CREATE SCHEMA holdpoint;

CREATE TABLE holdpoint.schema_version (version integer NOT NULL);

-- PostgreSQL 15 has no IS JSON predicate.
CREATE FUNCTION holdpoint.is_json_object(p text) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN json_typeof(p::json) = 'object';
EXCEPTION WHEN invalid_text_representation THEN
    RETURN false;
END
$$;
INSERT INTO holdpoint.schema_version VALUES (1);

-- Every running holdpoint, gateway or console. `id` is kept in the
-- instance's data directory, so a restarted gateway finds its items again.
CREATE TABLE holdpoint.instances (
    id           text PRIMARY KEY,
    kind         text NOT NULL CHECK (kind IN ('gateway', 'console')),
    host         text NOT NULL,
    label        text NOT NULL DEFAULT '',
    reviewer     text NOT NULL DEFAULT '',
    grace_ms     bigint NOT NULL DEFAULT 60000 CHECK (grace_ms >= 0),
    db_role      text NOT NULL,
    started_at   timestamptz NOT NULL,
    heartbeat_at timestamptz NOT NULL
);

-- One escalated call. `state` is the claim on it: only a conditional update
-- from 'pending' decides, so an item is decided exactly once.
CREATE TABLE holdpoint.items (
    id              text PRIMARY KEY,
    gateway         text NOT NULL,   -- the instance that holds the agent
    host            text NOT NULL,
    session_id      text NOT NULL,
    call_id         text NOT NULL,
    turn_id         text,
    tool            text NOT NULL,
    item            text NOT NULL CHECK (holdpoint.is_json_object(item)), -- as reviewers see it; secrets masked
    created_at      timestamptz NOT NULL,
    deadline        timestamptz NOT NULL,
    state           text NOT NULL DEFAULT 'pending'
                    CHECK (state IN ('pending', 'decided', 'timed_out', 'cancelled', 'abandoned', 'unavailable')),
    claimed_by      text,            -- instance holding the editor lease
    claim_name      text,            -- its reviewer, for "being edited by NAME"
    claim_until     timestamptz,
    decision        text CHECK (decision IN ('allow', 'deny', 'modify', 'halt')),
    review          text,            -- the reviewer's answer as JSON (args masked)
    reason          text,
    code            text,
    decided_by      text,
    decided_at      timestamptz,
    decided_by_instance text,
    decided_role    text
);
CREATE UNIQUE INDEX items_pending_call ON holdpoint.items (gateway, session_id, call_id) WHERE state = 'pending';
CREATE INDEX items_pending_deadline ON holdpoint.items (deadline) WHERE state = 'pending';
CREATE INDEX items_decided_at ON holdpoint.items (decided_at) WHERE state <> 'pending';

-- The hash chain of AUDIT.md: each line's "prev" is the SHA-256 (hex) of the
-- line before; audit_head holds the last line's number and hash. Appends lock
-- audit_head until their transaction commits, so the order of seq is the
-- order of commits.
CREATE TABLE holdpoint.audit (
    seq      bigint PRIMARY KEY,
    at       timestamptz NOT NULL,
    event    text NOT NULL,
    instance text,
    line     text NOT NULL
);
CREATE INDEX audit_at ON holdpoint.audit (at);

CREATE TABLE holdpoint.audit_head (
    one  boolean PRIMARY KEY DEFAULT true CHECK (one),
    seq  bigint NOT NULL,
    hash text NOT NULL
);
INSERT INTO holdpoint.audit_head VALUES (true, 0, repeat('0', 64));

-- How long a heartbeat stays fresh: instances beat every 2 s.
CREATE FUNCTION holdpoint.heartbeat_stale() RETURNS interval
    LANGUAGE sql IMMUTABLE AS $$ SELECT interval '10 seconds' $$;

CREATE FUNCTION holdpoint.ts_text(t timestamptz) RETURNS text
    LANGUAGE sql IMMUTABLE
    AS $$ SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;

-- Appends one line: {"seq":N,"ts":...,"event":...,<fields>,"db_role":...,"prev":...}.
-- `fields` is a JSON object whose members are already sorted (the caller's
-- serialiser sorts them); they are kept byte for byte.
CREATE FUNCTION holdpoint.audit_append(p_event text, p_instance text, p_fields text) RETURNS bigint
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    h record;
    body text := btrim(p_fields, E' \t\r\n');
    line text;
    now_ts timestamptz := clock_timestamp();
BEGIN
    IF p_event IS NULL OR p_event = '' OR body IS NULL OR NOT holdpoint.is_json_object(body) THEN
        RAISE EXCEPTION 'an audit record needs an event and a JSON object of fields' USING ERRCODE = '22023';
    END IF;
    body := btrim(substr(body, 2, length(body) - 2), E' \t\r\n');
    SELECT seq, hash INTO h FROM holdpoint.audit_head FOR UPDATE;
    line := '{"seq":' || (h.seq + 1) || ',"ts":' || to_json(holdpoint.ts_text(now_ts))::text
            || ',"event":' || to_json(p_event)::text
            || CASE WHEN body = '' THEN '' ELSE ',' || body END
            || ',"db_role":' || to_json(session_user::text)::text
            || ',"prev":"' || h.hash || '"}';
    INSERT INTO holdpoint.audit (seq, at, event, instance, line) VALUES (h.seq + 1, now_ts, p_event, p_instance, line);
    UPDATE holdpoint.audit_head SET seq = h.seq + 1, hash = encode(sha256(convert_to(line, 'UTF8')), 'hex');
    RETURN h.seq + 1;
END
$$;

-- Gateways and consoles: "I am alive". Returns the database's clock, which
-- every deadline and lease is measured against.
CREATE FUNCTION holdpoint.heartbeat(p_id text, p_kind text, p_host text, p_label text, p_reviewer text,
                                    p_grace_ms bigint)
    RETURNS timestamptz
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    now_ts timestamptz := clock_timestamp();
BEGIN
    INSERT INTO holdpoint.instances AS i (id, kind, host, label, reviewer, grace_ms, db_role, started_at, heartbeat_at)
    VALUES (p_id, p_kind, p_host, coalesce(p_label, ''), coalesce(p_reviewer, ''), p_grace_ms, session_user, now_ts, now_ts)
    ON CONFLICT (id) DO UPDATE
        SET kind = excluded.kind, host = excluded.host, label = excluded.label, reviewer = excluded.reviewer,
            grace_ms = excluded.grace_ms, db_role = excluded.db_role, heartbeat_at = excluded.heartbeat_at,
            started_at = CASE WHEN i.heartbeat_at < now_ts - holdpoint.heartbeat_stale()
                              THEN now_ts ELSE i.started_at END;
    RETURN now_ts;
END
$$;

-- A gateway puts an escalated call in the team queue. Re-sending the same
-- pending call (a gateway that restarted) returns the row already there.
-- Returns the item's state: 'pending', or what it ended as.
CREATE FUNCTION holdpoint.escalate(p_id text, p_gateway text, p_host text, p_session text, p_call text,
                                   p_turn text, p_tool text, p_item text, p_wait_ms bigint, p_audit text)
    RETURNS TABLE (id text, state text, created boolean)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    now_ts timestamptz := clock_timestamp();
    existing record;
BEGIN
    SELECT i.id, i.gateway, i.session_id, i.call_id, i.state INTO existing FROM holdpoint.items i WHERE i.id = p_id;
    IF FOUND THEN
        IF existing.gateway = p_gateway AND existing.session_id = p_session AND existing.call_id = p_call THEN
            RETURN QUERY SELECT existing.id, existing.state, false;
            RETURN;
        END IF;
        RAISE EXCEPTION 'item id % is taken by another call', p_id USING ERRCODE = '23505';
    END IF;
    INSERT INTO holdpoint.items (id, gateway, host, session_id, call_id, turn_id, tool, item, created_at, deadline)
    VALUES (p_id, p_gateway, p_host, p_session, p_call, p_turn, p_tool, p_item, now_ts,
            now_ts + make_interval(secs => greatest(p_wait_ms, 0) / 1000.0));
    PERFORM holdpoint.audit_append('escalated', p_gateway, p_audit);
    PERFORM pg_notify('holdpoint', 'new ' || p_id);
    RETURN QUERY SELECT p_id, 'pending'::text, true;
END
$$;

-- A reviewer's decision. Exactly one per item: the update only takes a
-- pending item, before its deadline, that no other console holds a lease on
-- (a halt takes it regardless). The audit line commits with it.
-- outcome: decided | already_decided | claimed | unknown_item
CREATE FUNCTION holdpoint.decide(p_id text, p_instance text, p_decided_by text, p_decision text, p_review text,
                                 p_reason text, p_audit text)
    RETURNS TABLE (outcome text, decided_by text, decided_at timestamptz, holder text, state text,
                   decided_by_instance text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    now_ts timestamptz := clock_timestamp();
    r record;
BEGIN
    IF p_review IS NULL OR NOT holdpoint.is_json_object(p_review) THEN
        RAISE EXCEPTION 'a decision needs the review as a JSON object' USING ERRCODE = '22023';
    END IF;
    UPDATE holdpoint.items i
       SET state = 'decided', decision = p_decision, review = p_review, reason = p_reason, code = NULL,
           decided_by = p_decided_by, decided_at = now_ts, decided_by_instance = p_instance,
           decided_role = session_user, claimed_by = NULL, claim_name = NULL, claim_until = NULL
     WHERE i.id = p_id AND i.state = 'pending' AND i.deadline > now_ts
       AND (p_decision = 'halt' OR i.claimed_by IS NULL OR i.claimed_by = p_instance OR i.claim_until <= now_ts)
    RETURNING i.id INTO r;
    IF FOUND THEN
        PERFORM holdpoint.audit_append('decision', p_instance, p_audit);
        PERFORM pg_notify('holdpoint', 'decided ' || p_id);
        RETURN QUERY SELECT 'decided'::text, p_decided_by, now_ts, NULL::text, 'decided'::text, p_instance;
        RETURN;
    END IF;
    SELECT i.state, i.deadline, i.claim_name, i.decided_by, i.decided_at, i.decided_by_instance
      INTO r FROM holdpoint.items i WHERE i.id = p_id;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'unknown_item'::text, NULL::text, NULL::timestamptz, NULL::text, NULL::text, NULL::text;
    ELSIF r.state = 'pending' AND r.deadline <= now_ts THEN
        PERFORM holdpoint.expire_due(p_instance);
        SELECT i.state, i.decided_by, i.decided_at, i.decided_by_instance INTO r FROM holdpoint.items i WHERE i.id = p_id;
        RETURN QUERY SELECT 'already_decided'::text, r.decided_by, r.decided_at, NULL::text, r.state,
                            r.decided_by_instance;
    ELSIF r.state = 'pending' THEN
        RETURN QUERY SELECT 'claimed'::text, NULL::text, NULL::timestamptz, r.claim_name, r.state, NULL::text;
    ELSE
        RETURN QUERY SELECT 'already_decided'::text, r.decided_by, r.decided_at, NULL::text, r.state,
                            r.decided_by_instance;
    END IF;
END
$$;

-- Takes or renews the editor lease on a pending item. Returns whether this
-- instance holds it now, and who does.
CREATE FUNCTION holdpoint.claim(p_id text, p_instance text, p_name text, p_lease_ms bigint)
    RETURNS TABLE (held boolean, holder text, until timestamptz, state text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    now_ts timestamptz := clock_timestamp();
    new_until timestamptz := clock_timestamp() + make_interval(secs => greatest(p_lease_ms, 1000) / 1000.0);
    r record;
BEGIN
    SELECT i.state, i.claimed_by, i.claim_name, i.claim_until INTO r
      FROM holdpoint.items i WHERE i.id = p_id FOR UPDATE;
    IF NOT FOUND THEN
        RETURN QUERY SELECT false, NULL::text, NULL::timestamptz, NULL::text;
        RETURN;
    END IF;
    IF r.state <> 'pending' THEN
        RETURN QUERY SELECT false, NULL::text, NULL::timestamptz, r.state;
        RETURN;
    END IF;
    IF r.claimed_by IS NOT NULL AND r.claimed_by <> p_instance AND r.claim_until > now_ts THEN
        RETURN QUERY SELECT false, r.claim_name, r.claim_until, r.state;
        RETURN;
    END IF;
    UPDATE holdpoint.items i SET claimed_by = p_instance, claim_name = p_name, claim_until = new_until
     WHERE i.id = p_id;
    IF r.claimed_by IS DISTINCT FROM p_instance OR r.claim_until <= now_ts THEN
        PERFORM holdpoint.audit_append('claimed', p_instance,
            '{"item":' || to_json(p_id)::text || ',"reviewer":' || to_json(p_name)::text || '}');
        PERFORM pg_notify('holdpoint', 'claim ' || p_id);
    END IF;
    RETURN QUERY SELECT true, p_name, new_until, 'pending'::text;
END
$$;

CREATE FUNCTION holdpoint.release(p_id text, p_instance text) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    UPDATE holdpoint.items i SET claimed_by = NULL, claim_name = NULL, claim_until = NULL
     WHERE i.id = p_id AND i.state = 'pending' AND i.claimed_by = p_instance;
    IF FOUND THEN
        PERFORM pg_notify('holdpoint', 'claim ' || p_id);
    END IF;
    RETURN FOUND;
END
$$;

-- A gateway ends one of its own items without a reviewer: the agent
-- cancelled or went away, or the team was unreachable until the deadline.
-- Always a deny. Returns the item's state afterwards (a reviewer's
-- decision that came first stands).
CREATE FUNCTION holdpoint.withdraw(p_id text, p_gateway text, p_state text, p_code text, p_reason text,
                                   p_decided_by text, p_audit text)
    RETURNS TABLE (withdrawn boolean, state text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    now_ts timestamptz := clock_timestamp();
    r record;
BEGIN
    IF p_state NOT IN ('cancelled', 'abandoned', 'unavailable', 'timed_out') THEN
        RAISE EXCEPTION 'withdraw: % is not a state a gateway may end an item in', p_state USING ERRCODE = '22023';
    END IF;
    UPDATE holdpoint.items i
       SET state = p_state, decision = 'deny', code = p_code, reason = p_reason, decided_by = p_decided_by,
           decided_at = now_ts, decided_by_instance = p_gateway, decided_role = session_user,
           claimed_by = NULL, claim_name = NULL, claim_until = NULL
     WHERE i.id = p_id AND i.gateway = p_gateway AND i.state = 'pending'
    RETURNING i.id INTO r;
    IF FOUND THEN
        PERFORM holdpoint.audit_append('decision', p_gateway, p_audit);
        PERFORM pg_notify('holdpoint', 'decided ' || p_id);
        RETURN QUERY SELECT true, p_state;
        RETURN;
    END IF;
    RETURN QUERY SELECT false, i.state FROM holdpoint.items i WHERE i.id = p_id;
END
$$;

-- Ends, exactly once, every pending item past its deadline (timed_out) or
-- whose gateway's heartbeat is older than heartbeat_stale() plus the
-- gateway's grace period (abandoned). Any instance may run it at any time;
-- SKIP LOCKED lets several run at once without waiting on each other.
CREATE FUNCTION holdpoint.expire_due(p_instance text) RETURNS SETOF text
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    now_ts timestamptz := clock_timestamp();
    r record;
BEGIN
    FOR r IN
        WITH due AS (
            SELECT i.id,
                   CASE WHEN i.deadline <= now_ts THEN 'timed_out' ELSE 'abandoned' END AS ending
              FROM holdpoint.items i
              LEFT JOIN holdpoint.instances g ON g.id = i.gateway
             WHERE i.state = 'pending'
               AND (i.deadline <= now_ts
                    OR g.heartbeat_at IS NULL
                    OR g.heartbeat_at + holdpoint.heartbeat_stale() + make_interval(secs => g.grace_ms / 1000.0) <= now_ts)
             ORDER BY i.deadline
             LIMIT 1000
             FOR UPDATE OF i SKIP LOCKED)
        UPDATE holdpoint.items i
           SET state = due.ending, decision = 'deny',
               code = CASE WHEN due.ending = 'timed_out' THEN 'timeout' ELSE 'abandoned' END,
               reason = CASE WHEN due.ending = 'timed_out'
                             THEN 'timed out: no reviewer decided before the deadline'
                             ELSE 'abandoned: the agent''s host stopped answering and did not come back within its grace period' END,
               decided_by = 'timeout', decided_at = now_ts, decided_by_instance = p_instance,
               decided_role = session_user, claimed_by = NULL, claim_name = NULL, claim_until = NULL
          FROM due
         WHERE i.id = due.id
        RETURNING i.id, i.state, i.code, i.reason, i.tool, i.session_id, i.call_id, i.gateway
    LOOP
        PERFORM holdpoint.audit_append('decision', p_instance,
            '{"call_id":' || to_json(r.call_id)::text
            || ',"code":' || to_json(r.code)::text
            || ',"decided_by":"timeout","decision":"deny"'
            || ',"gateway":' || to_json(r.gateway)::text
            || ',"item":' || to_json(r.id)::text
            || ',"reason":' || to_json(r.reason)::text
            || ',"session":' || to_json(r.session_id)::text
            || ',"state":' || to_json(r.state)::text
            || ',"tool":' || to_json(r.tool)::text || '}');
        PERFORM pg_notify('holdpoint', 'decided ' || r.id);
        RETURN NEXT r.id;
    END LOOP;
END
$$;

-- Records that need no state change: a gateway's auto-decisions, copied in
-- batches, and deliveries. Each (event, fields) pair becomes one line.
CREATE FUNCTION holdpoint.append_audit(p_instance text, p_events text[], p_fields text[]) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    last bigint := 0;
BEGIN
    IF coalesce(array_length(p_events, 1), 0) <> coalesce(array_length(p_fields, 1), 0) THEN
        RAISE EXCEPTION 'append_audit: % events but % field sets', array_length(p_events, 1),
            array_length(p_fields, 1) USING ERRCODE = '22023';
    END IF;
    FOR n IN 1 .. coalesce(array_length(p_events, 1), 0) LOOP
        last := holdpoint.audit_append(p_events[n], p_instance, p_fields[n]);
    END LOOP;
    RETURN last;
END
$$;
