-- SPDX-License-Identifier: Apache-2.0
-- Team schema version 4 (TEAM.md "Versions" and "Notifications"), additive:
-- it adds and replaces nothing an instance of version 3 calls, so those keep
-- working against it.
-- - Each version says whether it is additive (schema_versions), so that an
--   instance older than the schema can tell whether it may keep working.
-- - A batch of escalations is one statement and one notification, not one
--   of each per item.

-- Every version applied, and whether it is additive: it only adds tables,
-- columns, functions and overloads, and changes neither the signature nor
-- what any existing function does for the instances that call it.
-- holdpoint.schema_version keeps the newest version that is NOT additive:
-- an instance that knows that one works against everything applied since,
-- which is what instances from before this table read there.
CREATE TABLE holdpoint.schema_versions (
    version    integer PRIMARY KEY CHECK (version > 0),
    additive   boolean NOT NULL,
    applied_at timestamptz          -- NULL: applied before this table existed
);
INSERT INTO holdpoint.schema_versions (version, additive) VALUES (1, false), (2, true), (3, false);
INSERT INTO holdpoint.schema_versions (version, additive, applied_at) VALUES (4, true, clock_timestamp());

-- The newest schema version the instance knows; NULL: one from before
-- version 4, which reads one item id per `new` notification.
ALTER TABLE holdpoint.instances ADD COLUMN knows integer;

-- How long after its last heartbeat an instance from before version 4 still
-- gets one `new` notification per item: longer than a heartbeat's staleness,
-- so one that is slow to beat misses nothing.
CREATE FUNCTION holdpoint.per_item_window() RETURNS interval
    LANGUAGE sql IMMUTABLE AS $$ SELECT interval '1 minute' $$;

-- heartbeat(), saying which version the instance knows.
CREATE FUNCTION holdpoint.heartbeat(p_id text, p_kind text, p_host text, p_label text, p_reviewer text,
                                    p_grace_ms bigint, p_knows integer)
    RETURNS timestamptz
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    now_ts timestamptz := clock_timestamp();
    was record;
BEGIN
    IF coalesce(p_knows, 0) < 4 THEN
        SELECT i.knows, i.heartbeat_at INTO was FROM holdpoint.instances i WHERE i.id = p_id;
        IF NOT FOUND OR coalesce(was.knows, 0) >= 4
           OR was.heartbeat_at <= now_ts - holdpoint.per_item_window() THEN
            -- An instance that reads one id per notification joins. Escalations
            -- hold audit_head until they commit: wait for those on their way
            -- (the instance reads them after this), and every later one sees
            -- this row before it notifies (notify_new).
            PERFORM 1 FROM holdpoint.audit_head FOR SHARE;
            now_ts := clock_timestamp();
        END IF;
    END IF;
    INSERT INTO holdpoint.instances AS i (id, kind, host, label, reviewer, grace_ms, db_role, started_at, heartbeat_at,
                                          knows)
    VALUES (p_id, p_kind, p_host, coalesce(p_label, ''), coalesce(p_reviewer, ''), p_grace_ms, session_user, now_ts,
            now_ts, p_knows)
    ON CONFLICT (id) DO UPDATE
        SET kind = excluded.kind, host = excluded.host, label = excluded.label, reviewer = excluded.reviewer,
            grace_ms = excluded.grace_ms, db_role = excluded.db_role, heartbeat_at = excluded.heartbeat_at,
            knows = excluded.knows,
            started_at = CASE WHEN i.heartbeat_at < now_ts - holdpoint.heartbeat_stale()
                              THEN now_ts ELSE i.started_at END;
    RETURN now_ts;
END
$$;

-- The version-3 heartbeat, as it was for its callers; it now also records
-- that they read one id per notification.
CREATE OR REPLACE FUNCTION holdpoint.heartbeat(p_id text, p_kind text, p_host text, p_label text, p_reviewer text,
                                               p_grace_ms bigint)
    RETURNS timestamptz
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN holdpoint.heartbeat(p_id, p_kind, p_host, p_label, p_reviewer, p_grace_ms, NULL::integer);
END
$$;

-- Announces new items: `new-batch <id> <id> ...`, as many ids as fit in
-- PostgreSQL's 8000-byte payload (several notifications for a long list).
-- While an instance from before version 4 may be listening, also `new <id>`
-- for each. Call it after the items' audit lines, so audit_head is held
-- (heartbeat()).
CREATE FUNCTION holdpoint.notify_new(p_ids text[]) RETURNS void
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    one text;
    payload text := '';
BEGIN
    IF coalesce(cardinality(p_ids), 0) = 0 THEN
        RETURN;
    END IF;
    IF EXISTS (SELECT 1 FROM holdpoint.instances g
                WHERE coalesce(g.knows, 0) < 4 AND g.heartbeat_at > clock_timestamp() - holdpoint.per_item_window()) THEN
        FOREACH one IN ARRAY p_ids LOOP
            PERFORM pg_notify('holdpoint', 'new ' || one);
        END LOOP;
    END IF;
    FOREACH one IN ARRAY p_ids LOOP
        IF one ~ '\s' OR octet_length(one) > 7000 THEN
            PERFORM pg_notify('holdpoint', 'new ' || one); -- read alone: it cannot be listed
            CONTINUE;
        END IF;
        IF payload <> '' AND octet_length(payload) + 1 + octet_length(one) > 7990 THEN
            PERFORM pg_notify('holdpoint', payload);
            payload := '';
        END IF;
        payload := CASE WHEN payload = '' THEN 'new-batch ' ELSE payload || ' ' END || one;
    END LOOP;
    IF payload <> '' THEN
        PERFORM pg_notify('holdpoint', payload);
    END IF;
END
$$;

-- Appends several lines to the audit chain: each exactly as audit_append()
-- writes it, in order, with audit_head read and written once for all of
-- them. (A row updated once per line leaves a dead version per line, which
-- every later append then reads past until vacuum.) Returns the last seq.
CREATE FUNCTION holdpoint.audit_append_many(p_instance text, p_events text[], p_fields text[]) RETURNS bigint
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    h record;
    s bigint;
    prev text;
    body text;
    line text;
    now_ts timestamptz;
    role_json text := to_json(session_user::text)::text;
BEGIN
    IF coalesce(cardinality(p_events), 0) <> coalesce(cardinality(p_fields), 0) THEN
        RAISE EXCEPTION 'append_audit: % events but % field sets', cardinality(p_events),
            cardinality(p_fields) USING ERRCODE = '22023';
    END IF;
    IF coalesce(cardinality(p_events), 0) = 0 THEN
        RETURN 0;
    END IF;
    SELECT a.seq, a.hash INTO h FROM holdpoint.audit_head a FOR UPDATE;
    s := h.seq;
    prev := h.hash;
    FOR n IN 1 .. cardinality(p_events) LOOP
        body := btrim(p_fields[n], E' \t\r\n');
        IF p_events[n] IS NULL OR p_events[n] = '' OR body IS NULL OR NOT holdpoint.is_json_object(body) THEN
            RAISE EXCEPTION 'an audit record needs an event and a JSON object of fields' USING ERRCODE = '22023';
        END IF;
        body := btrim(substr(body, 2, length(body) - 2), E' \t\r\n');
        now_ts := clock_timestamp();
        s := s + 1;
        line := '{"seq":' || s || ',"ts":' || to_json(holdpoint.ts_text(now_ts))::text
                || ',"event":' || to_json(p_events[n])::text
                || CASE WHEN body = '' THEN '' ELSE ',' || body END
                || ',"db_role":' || role_json
                || ',"prev":"' || prev || '"}';
        INSERT INTO holdpoint.audit (seq, at, event, instance, line) VALUES (s, now_ts, p_events[n], p_instance, line);
        prev := encode(sha256(convert_to(line, 'UTF8')), 'hex');
    END LOOP;
    UPDATE holdpoint.audit_head SET seq = s, hash = prev;
    RETURN s;
END
$$;

-- append_audit() as it was for its callers, through audit_append_many().
CREATE OR REPLACE FUNCTION holdpoint.append_audit(p_instance text, p_events text[], p_fields text[]) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN holdpoint.audit_append_many(p_instance, p_events, p_fields);
END
$$;

-- append_audit() that writes a batch once: an instance names each batch of
-- copied records by its run (a random id per process) and a number that
-- grows with each batch, and a batch sent again (its first try committed,
-- and the answer was lost to the connection) appends nothing. Returns the
-- last seq, or NULL for a batch written already. One row per run.
CREATE TABLE holdpoint.audit_copies (
    instance text NOT NULL,
    run      text NOT NULL,
    batch    bigint NOT NULL,
    at       timestamptz NOT NULL,
    PRIMARY KEY (instance, run)
);

CREATE FUNCTION holdpoint.append_audit_once(p_instance text, p_run text, p_batch bigint,
                                            p_events text[], p_fields text[]) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    INSERT INTO holdpoint.audit_copies AS c (instance, run, batch, at)
         VALUES (p_instance, p_run, p_batch, clock_timestamp())
    ON CONFLICT (instance, run) DO UPDATE SET batch = excluded.batch, at = excluded.at
         WHERE c.batch < excluded.batch;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    -- Runs that ended long ago.
    DELETE FROM holdpoint.audit_copies
     WHERE instance = p_instance AND run <> p_run AND at < clock_timestamp() - interval '1 day';
    RETURN holdpoint.audit_append_many(p_instance, p_events, p_fields);
END
$$;

-- escalate() for a batch of a gateway's calls, in one statement: the arrays
-- hold one element per call. Each call is what escalate() does for it (the
-- same pending call sent again returns its row; an id taken by another call
-- is refused with 23505 and nothing is written), and the new ones are
-- announced together at the end, after their `escalated` lines.
CREATE FUNCTION holdpoint.escalate_batch(p_gateway text, p_host text, p_ids text[], p_sessions text[],
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
    -- Their `escalated` lines, in order, then one announcement (with
    -- audit_head held, as notify_new() needs).
    PERFORM holdpoint.audit_append_many(p_gateway, array_fill('escalated'::text, ARRAY[cardinality(fresh)]),
                                        fresh_audits);
    PERFORM holdpoint.notify_new(fresh);
END
$$;
