-- SPDX-License-Identifier: Apache-2.0
-- Team schema version 5 (TEAM.md "Who may do what"): the database is the
-- authority. Every function takes who is calling from session_user and what
-- happens from the rows it holds, never from a value its caller chose:
-- - review() takes an action and its arguments; the votes, the quorum, the
--   decision, the review text, the hashes and the audit lines are the
--   server's. A decision that needs two people comes only from its count.
-- - An instance belongs to the login that created it: no other login may
--   heartbeat, escalate, withdraw, expire, claim or copy audit lines as it.
-- - A claim is in the caller's own reviewer name, for at most a minute.
-- - Quorum counts people: one login counts once whatever names it maps to,
--   exclude_requester covers every name of the login, and a disabled
--   reviewer's votes are void.
-- Not additive: review() and withdraw() lose the arguments a caller could
-- forge (a decision, a review, a hash, a decider's name, audit fields), so a
-- version-4 instance cannot call them and refuses this schema (TEAM.md
-- "Versions": upgrade across a version that is not additive).

INSERT INTO holdpoint.schema_versions (version, additive, applied_at) VALUES (5, false, clock_timestamp());

-- The login that gave each vote; NULL: a vote from before version 5, which
-- counts as its reviewer's.
ALTER TABLE holdpoint.votes ADD COLUMN login text;

-- Refuses an instance id another login owns (42501). With p_must_exist, an
-- id that is not registered is refused too.
CREATE FUNCTION holdpoint.check_instance(p_id text, p_must_exist boolean) RETURNS void
    LANGUAGE plpgsql STABLE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    owner text;
BEGIN
    SELECT i.db_role INTO owner FROM holdpoint.instances i WHERE i.id = p_id;
    IF NOT FOUND THEN
        IF p_must_exist THEN
            RAISE EXCEPTION 'instance % is not in the team (it registers with its first heartbeat or escalation)',
                p_id USING ERRCODE = '42501';
        END IF;
        RETURN;
    END IF;
    IF owner IS DISTINCT FROM session_user THEN
        RAISE EXCEPTION 'instance % belongs to the database login %; login % may not act as it', p_id, owner,
            session_user USING ERRCODE = '42501';
    END IF;
END
$$;

-- An escalation is its gateway's sign of life: it registers an instance seen
-- for the first time (so its first call is never abandoned for want of a
-- heartbeat it has not sent yet) and refreshes the heartbeat of one that
-- restarts. Another login's instance is refused.
CREATE FUNCTION holdpoint.register_instance(p_id text, p_host text, p_knows integer) RETURNS void
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    now_ts timestamptz := clock_timestamp();
    was record;
BEGIN
    SELECT i.db_role, i.heartbeat_at INTO was FROM holdpoint.instances i WHERE i.id = p_id;
    IF FOUND THEN
        PERFORM holdpoint.check_instance(p_id, true);
        -- A heartbeat under half its staleness old needs no help; under a
        -- burst this keeps escalations from rewriting the row.
        IF was.heartbeat_at < now_ts - holdpoint.heartbeat_stale() / 2 THEN
            UPDATE holdpoint.instances i SET heartbeat_at = greatest(i.heartbeat_at, now_ts)
             WHERE i.id = p_id AND i.db_role = session_user;
        END IF;
        RETURN;
    END IF;
    INSERT INTO holdpoint.instances (id, kind, host, db_role, started_at, heartbeat_at, knows)
    VALUES (p_id, 'gateway', coalesce(p_host, ''), session_user, now_ts, now_ts, p_knows)
    ON CONFLICT (id) DO NOTHING;
    IF NOT FOUND THEN
        PERFORM holdpoint.check_instance(p_id, true); -- another login registered it meanwhile
    END IF;
END
$$;

-- An escalation's own audit line is the gateway's (its db_role): it may
-- describe the call, never name a decider or a decision, nor set the
-- chain's fields.
CREATE FUNCTION holdpoint.check_escalated(p_audits text[]) RETURNS void
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    FOR n IN 1 .. coalesce(cardinality(p_audits), 0) LOOP
        IF p_audits[n] IS NULL OR NOT holdpoint.is_json_object(p_audits[n]) THEN
            RAISE EXCEPTION 'an audit record needs an event and a JSON object of fields' USING ERRCODE = '22023';
        END IF;
        IF replace(p_audits[n], E'\\u0000', E'\\u0001')::jsonb
               ?| ARRAY['decided_by', 'decision', 'reviewer', 'via', 'approvers', 'db_role', 'seq', 'ts', 'prev', 'event'] THEN
            RAISE EXCEPTION 'an escalation''s record may not name a decision, a decider or the chain''s fields'
                USING ERRCODE = '42501';
        END IF;
    END LOOP;
END
$$;

-- heartbeat(): as in version 4, for the login that owns the instance only.
CREATE OR REPLACE FUNCTION holdpoint.heartbeat(p_id text, p_kind text, p_host text, p_label text, p_reviewer text,
                                               p_grace_ms bigint, p_knows integer)
    RETURNS timestamptz
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    now_ts timestamptz := clock_timestamp();
    was record;
BEGIN
    PERFORM holdpoint.check_instance(p_id, false);
    IF coalesce(p_knows, 0) < 4 THEN
        SELECT i.knows, i.heartbeat_at INTO was FROM holdpoint.instances i WHERE i.id = p_id;
        IF NOT FOUND OR coalesce(was.knows, 0) >= 4
           OR was.heartbeat_at <= now_ts - holdpoint.per_item_window() THEN
            PERFORM 1 FROM holdpoint.audit_head FOR SHARE; -- see version 4
            now_ts := clock_timestamp();
        END IF;
    END IF;
    INSERT INTO holdpoint.instances AS i (id, kind, host, label, reviewer, grace_ms, db_role, started_at, heartbeat_at,
                                          knows)
    VALUES (p_id, p_kind, p_host, coalesce(p_label, ''), coalesce(p_reviewer, ''), p_grace_ms, session_user, now_ts,
            now_ts, p_knows)
    ON CONFLICT (id) DO UPDATE
        SET kind = excluded.kind, host = excluded.host, label = excluded.label, reviewer = excluded.reviewer,
            grace_ms = excluded.grace_ms, heartbeat_at = excluded.heartbeat_at, knows = excluded.knows,
            started_at = CASE WHEN i.heartbeat_at < now_ts - holdpoint.heartbeat_stale()
                              THEN now_ts ELSE i.started_at END
        WHERE i.db_role = excluded.db_role;
    IF NOT FOUND THEN
        PERFORM holdpoint.check_instance(p_id, true);
    END IF;
    RETURN now_ts;
END
$$;

CREATE OR REPLACE FUNCTION holdpoint.publish_agents(p_id text, p_agents text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM holdpoint.check_instance(p_id, true);
    IF p_agents IS NULL OR NOT holdpoint.is_json_array(p_agents) THEN
        RAISE EXCEPTION 'agents must be a JSON array' USING ERRCODE = '22023';
    END IF;
    UPDATE holdpoint.instances SET agents = p_agents WHERE id = p_id;
END
$$;

CREATE OR REPLACE FUNCTION holdpoint.set_agent_connected(p_gateway text, p_id text, p_connected boolean)
    RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM holdpoint.check_instance(p_gateway, true);
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

CREATE OR REPLACE FUNCTION holdpoint.set_turn_findings(p_gateway text, p_session text, p_turn text, p_findings text)
    RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r record;
    n integer := 0;
BEGIN
    PERFORM holdpoint.check_instance(p_gateway, true);
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

-- escalate() and escalate_batch(): as in version 4, for the caller's own
-- instance, which they register or keep alive (register_instance).
CREATE OR REPLACE FUNCTION holdpoint.escalate(p_id text, p_gateway text, p_host text, p_session text, p_call text,
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
    PERFORM holdpoint.register_instance(p_gateway, p_host, NULL);
    PERFORM holdpoint.check_escalated(ARRAY[p_audit]);
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

CREATE OR REPLACE FUNCTION holdpoint.escalate_batch(p_gateway text, p_host text, p_ids text[], p_sessions text[],
                                                    p_calls text[], p_turns text[], p_tools text[], p_items text[],
                                                    p_wait_ms bigint[], p_audits text[])
    RETURNS TABLE (id text, state text, created boolean)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    n integer := coalesce(cardinality(p_ids), 0);
    now_ts timestamptz;
    existing record;
    fresh text[] := '{}';
    fresh_audits text[] := '{}';
BEGIN
    IF n > 10000 OR coalesce(cardinality(p_sessions), 0) <> n OR coalesce(cardinality(p_calls), 0) <> n
       OR coalesce(cardinality(p_turns), 0) <> n OR coalesce(cardinality(p_tools), 0) <> n
       OR coalesce(cardinality(p_items), 0) <> n OR coalesce(cardinality(p_wait_ms), 0) <> n
       OR coalesce(cardinality(p_audits), 0) <> n THEN
        RAISE EXCEPTION 'escalate_batch: one element per call in every array, at most 10000' USING ERRCODE = '22023';
    END IF;
    PERFORM holdpoint.register_instance(p_gateway, p_host, 5);
    PERFORM holdpoint.check_escalated(p_audits);
    FOR k IN 1 .. n LOOP
        now_ts := clock_timestamp();
        SELECT i.id, i.gateway, i.session_id, i.call_id, i.state INTO existing
          FROM holdpoint.items i WHERE i.id = p_ids[k];
        IF FOUND THEN
            IF existing.gateway = p_gateway AND existing.session_id = p_sessions[k]
               AND existing.call_id = p_calls[k] THEN
                RETURN QUERY SELECT existing.id, existing.state, false;
                CONTINUE;
            END IF;
            RAISE EXCEPTION 'item id % is taken by another call', p_ids[k] USING ERRCODE = '23505';
        END IF;
        INSERT INTO holdpoint.items (id, gateway, host, session_id, call_id, turn_id, tool, item, created_at, deadline)
        VALUES (p_ids[k], p_gateway, p_host, p_sessions[k], p_calls[k], p_turns[k], p_tools[k], p_items[k], now_ts,
                now_ts + make_interval(secs => greatest(p_wait_ms[k], 0) / 1000.0));
        fresh := fresh || p_ids[k];
        fresh_audits := fresh_audits || p_audits[k];
        RETURN QUERY SELECT p_ids[k], 'pending'::text, true;
    END LOOP;
    PERFORM holdpoint.audit_append_many(p_gateway, array_fill('escalated'::text, ARRAY[cardinality(fresh)]),
                                        fresh_audits);
    PERFORM holdpoint.notify_new(fresh);
END
$$;

-- The body of version 1's expire_due(), for the functions that end items on
-- the way (review()); expire_due() is it behind the instance check.
CREATE FUNCTION holdpoint.expire_items(p_instance text) RETURNS SETOF text
    LANGUAGE plpgsql
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

CREATE OR REPLACE FUNCTION holdpoint.expire_due(p_instance text) RETURNS SETOF text
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- An id no instance holds (holdpoint-ctl's) only labels the record.
    PERFORM holdpoint.check_instance(p_instance, false);
    RETURN QUERY SELECT holdpoint.expire_items(p_instance);
END
$$;

-- A gateway ends one of its own items without a reviewer, always with a
-- deny and never in a person's name. The audit line is the server's, from
-- the row. Returns the item's state afterwards.
DROP FUNCTION holdpoint.withdraw(text, text, text, text, text, text, text);
CREATE FUNCTION holdpoint.withdraw(p_id text, p_gateway text, p_state text, p_code text, p_reason text,
                                   p_decided_by text)
    RETURNS TABLE (withdrawn boolean, state text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    now_ts timestamptz := clock_timestamp();
    r record;
    fields jsonb;
BEGIN
    IF p_state IS NULL OR p_state NOT IN ('cancelled', 'abandoned', 'unavailable', 'timed_out') THEN
        RAISE EXCEPTION 'withdraw: % is not a state a gateway may end an item in', p_state USING ERRCODE = '22023';
    END IF;
    -- Its own words (timeout, agent, team, audit) or a guardrail's
    -- (guardrail:loops), never a person's.
    IF coalesce(p_decided_by, '') !~ '^[a-z][a-z_-]{0,31}(:[^,]{1,200})?$'
       OR p_decided_by LIKE 'human:%' THEN
        RAISE EXCEPTION 'withdraw: a gateway ends an item in its own name (timeout, agent, team, guardrail:NAME), never as "%"',
            p_decided_by USING ERRCODE = '42501';
    END IF;
    PERFORM holdpoint.check_instance(p_gateway, true);
    UPDATE holdpoint.items i
       SET state = p_state, decision = 'deny', code = p_code, reason = p_reason, decided_by = p_decided_by,
           decided_at = now_ts, decided_by_instance = p_gateway, decided_role = session_user,
           claimed_by = NULL, claim_name = NULL, claim_until = NULL
     WHERE i.id = p_id AND i.gateway = p_gateway AND i.state = 'pending'
    RETURNING i.* INTO r;
    IF FOUND THEN
        fields := jsonb_build_object('call_id', r.call_id, 'code', p_code, 'decided_by', p_decided_by,
                                     'decision', 'deny', 'gateway', r.gateway, 'item', r.id, 'reason', p_reason,
                                     'session', r.session_id, 'state', p_state, 'tool', r.tool);
        IF r.turn_id IS NOT NULL THEN
            fields := fields || jsonb_build_object('turn', r.turn_id);
        END IF;
        PERFORM holdpoint.audit_append('decision', p_gateway, jsonb_strip_nulls(fields)::text);
        PERFORM pg_notify('holdpoint', 'decided ' || p_id);
        RETURN QUERY SELECT true, p_state;
        RETURN;
    END IF;
    RETURN QUERY SELECT false, i.state FROM holdpoint.items i WHERE i.id = p_id;
END
$$;

-- What a gateway may copy into the team audit: lines of its own log (its
-- instance) of the kinds nothing else writes: its calls, its automatic
-- decisions, deliveries and a count of lost records. Decision lines in a
-- person's name, votes, claims, escalations and reviewers are the
-- database's, written with the change they record; db_role, seq, ts and
-- prev are the chain's.
CREATE FUNCTION holdpoint.check_copies(p_instance text, p_events text[], p_fields text[]) RETURNS void
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    f jsonb;
BEGIN
    PERFORM holdpoint.check_instance(p_instance, true);
    FOR n IN 1 .. coalesce(cardinality(p_events), 0) LOOP
        IF p_events[n] IS NULL OR p_events[n] NOT IN ('call', 'decision', 'delivered', 'records_lost') THEN
            RAISE EXCEPTION 'a gateway copies call, decision, delivered and records_lost lines; a "%" line is the database''s to write',
                p_events[n] USING ERRCODE = '42501';
        END IF;
        IF p_fields[n] IS NULL OR NOT holdpoint.is_json_object(p_fields[n]) THEN
            RAISE EXCEPTION 'an audit record needs an event and a JSON object of fields' USING ERRCODE = '22023';
        END IF;
        f := replace(p_fields[n], E'\\u0000', E'\\u0001')::jsonb;
        IF f ?| ARRAY['db_role', 'seq', 'ts', 'prev', 'event', 'approvers', 'reviewer', 'via'] THEN
            RAISE EXCEPTION 'a copied line may not set db_role, seq, ts, prev, event, reviewer, via or approvers'
                USING ERRCODE = '42501';
        END IF;
        IF f ->> 'gateway' IS DISTINCT FROM p_instance THEN
            RAISE EXCEPTION 'instance % copies lines of its own log only (this one says gateway %)', p_instance,
                coalesce(f ->> 'gateway', 'nothing') USING ERRCODE = '42501';
        END IF;
        IF p_events[n] = 'decision' AND (f ->> 'state' IS DISTINCT FROM 'auto'
                                         OR coalesce(f ->> 'decided_by', '') LIKE 'human:%') THEN
            RAISE EXCEPTION 'a gateway copies only its automatic decisions; a decision in a person''s name is written by the database with the decision'
                USING ERRCODE = '42501';
        END IF;
    END LOOP;
END
$$;

CREATE OR REPLACE FUNCTION holdpoint.append_audit(p_instance text, p_events text[], p_fields text[]) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM holdpoint.check_copies(p_instance, p_events, p_fields);
    RETURN holdpoint.audit_append_many(p_instance, p_events, p_fields);
END
$$;

CREATE OR REPLACE FUNCTION holdpoint.append_audit_once(p_instance text, p_run text, p_batch bigint,
                                                       p_events text[], p_fields text[]) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM holdpoint.check_copies(p_instance, p_events, p_fields);
    INSERT INTO holdpoint.audit_copies AS c (instance, run, batch, at)
         VALUES (p_instance, p_run, p_batch, clock_timestamp())
    ON CONFLICT (instance, run) DO UPDATE SET batch = excluded.batch, at = excluded.at
         WHERE c.batch < excluded.batch;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    DELETE FROM holdpoint.audit_copies
     WHERE instance = p_instance AND run <> p_run AND at < clock_timestamp() - interval '1 day';
    RETURN holdpoint.audit_append_many(p_instance, p_events, p_fields);
END
$$;

-- The editor lease, in the caller's own reviewer name (p_name picks among
-- the login's names, as review() does), on the caller's own instance, for
-- at most a minute (consoles renew 15 s leases every 5 s).
CREATE OR REPLACE FUNCTION holdpoint.claim(p_id text, p_instance text, p_name text, p_lease_ms bigint)
    RETURNS TABLE (held boolean, holder text, until timestamptz, state text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    who text := holdpoint.reviewer_for_login(p_name);
    now_ts timestamptz := clock_timestamp();
    new_until timestamptz := clock_timestamp()
        + make_interval(secs => least(greatest(coalesce(p_lease_ms, 0), 1000), 60000) / 1000.0);
    r record;
BEGIN
    PERFORM holdpoint.check_instance(p_instance, true);
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
    UPDATE holdpoint.items i SET claimed_by = p_instance, claim_name = who, claim_until = new_until
     WHERE i.id = p_id;
    IF r.claimed_by IS DISTINCT FROM p_instance OR r.claim_until <= now_ts OR r.claim_name IS DISTINCT FROM who THEN
        PERFORM holdpoint.audit_append('claimed', p_instance,
            '{"item":' || to_json(p_id)::text || ',"reviewer":' || to_json(who)::text || '}');
        PERFORM pg_notify('holdpoint', 'claim ' || p_id);
    END IF;
    RETURN QUERY SELECT true, who, new_until, 'pending'::text;
END
$$;

CREATE OR REPLACE FUNCTION holdpoint.release(p_id text, p_instance text) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    PERFORM holdpoint.check_instance(p_instance, true);
    UPDATE holdpoint.items i SET claimed_by = NULL, claim_name = NULL, claim_until = NULL
     WHERE i.id = p_id AND i.state = 'pending' AND i.claimed_by = p_instance;
    IF FOUND THEN
        PERFORM pg_notify('holdpoint', 'claim ' || p_id);
    END IF;
    RETURN FOUND;
END
$$;

-- SHA-256 (hex) of a JSON value's canonical text as holdpoint's clients
-- write it (protocol::argsDigest: keys sorted bytewise, no spaces), so
-- the hashes of votes the database computes are those consoles show.
CREATE FUNCTION holdpoint.canonical_json(p jsonb) RETURNS text
    LANGUAGE plpgsql IMMUTABLE
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    CASE jsonb_typeof(p)
    WHEN 'object' THEN
        RETURN '{' || coalesce((SELECT string_agg(to_json(e.k)::text || ':' || holdpoint.canonical_json(e.v), ','
                                                  ORDER BY e.k COLLATE "C")
                                  FROM jsonb_each(p) AS e(k, v)), '') || '}';
    WHEN 'array' THEN
        RETURN '[' || coalesce((SELECT string_agg(holdpoint.canonical_json(e.v), ',' ORDER BY e.n)
                                  FROM jsonb_array_elements(p) WITH ORDINALITY AS e(v, n)), '') || ']';
    ELSE
        RETURN p::text;
    END CASE;
END
$$;

CREATE FUNCTION holdpoint.args_digest(p_args text) RETURNS text
    LANGUAGE sql IMMUTABLE
    SET search_path = pg_catalog, pg_temp
AS $$
    SELECT encode(sha256(convert_to(holdpoint.canonical_json(replace(p_args, E'\\u0000', E'\\u0001')::jsonb),
                                    'UTF8')), 'hex')
$$;
