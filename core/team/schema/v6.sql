-- SPDX-License-Identifier: Apache-2.0
-- Team schema version 6, additive: the same functions as version 5, doing
-- the same, for less. It changes no signature, no table and no outcome, so
-- an instance of version 5 keeps working against it (TEAM.md "Versions").
-- Measured per escalation and approval in the database's own CPU time
-- (TEAM.md "What it costs"):
-- - review() parses the stored item once (jsonb) for its approval rule and
--   reads the arguments that stand, byte for byte, only when something
--   compares, counts or applies them; the login's names only for
--   exclude_requester.
-- - The helpers it calls per vote are PL/pgSQL, whose plans are kept per
--   session: an SQL function with its own search_path is planned anew on
--   every call.
-- - An escalation reads its instance's row once.

INSERT INTO holdpoint.schema_versions (version, additive, applied_at) VALUES (6, true, clock_timestamp());

CREATE OR REPLACE FUNCTION holdpoint.login_names() RETURNS text[]
    LANGUAGE plpgsql STABLE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    names text[];
BEGIN
    SELECT coalesce(array_agg(r.name ORDER BY r.name), '{}') INTO names
      FROM holdpoint.reviewer_logins l JOIN holdpoint.reviewers r ON r.name = l.name
     WHERE l.login = session_user AND NOT r.disabled;
    RETURN names;
END
$$;

CREATE OR REPLACE FUNCTION holdpoint.counted_votes(p_id text, p_hash text, p_reset boolean) RETURNS text[]
    LANGUAGE plpgsql STABLE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    names text[];
BEGIN
    SELECT coalesce(array_agg(c.reviewer ORDER BY c.at, c.reviewer), '{}') INTO names
      FROM (SELECT DISTINCT ON (coalesce(v.login, '#' || v.reviewer)) v.reviewer, v.at
              FROM holdpoint.votes v JOIN holdpoint.reviewers r ON r.name = v.reviewer AND NOT r.disabled
             WHERE v.item_id = p_id AND (v.args_hash = p_hash OR NOT p_reset)
             ORDER BY coalesce(v.login, '#' || v.reviewer), v.at) c;
    RETURN names;
END
$$;

CREATE OR REPLACE FUNCTION holdpoint.args_digest(p_args text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN encode(sha256(convert_to(holdpoint.canonical_json(replace(p_args, E'\\u0000', E'\\u0001')::jsonb),
                                    'UTF8')), 'hex');
END
$$;

CREATE OR REPLACE FUNCTION holdpoint.register_instance(p_id text, p_host text, p_knows integer) RETURNS void
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    now_ts timestamptz := clock_timestamp();
    was record;
BEGIN
    SELECT i.db_role, i.heartbeat_at INTO was FROM holdpoint.instances i WHERE i.id = p_id;
    IF FOUND THEN
        IF was.db_role IS DISTINCT FROM session_user THEN
            PERFORM holdpoint.check_instance(p_id, true); -- says whose it is
        END IF;
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

-- The fields of an audit record, parsed once: a JSON object, or 22023.
-- (is_json_object() and then a cast parsed each record twice.)
CREATE FUNCTION holdpoint.fields_object(p text) RETURNS jsonb
    LANGUAGE plpgsql IMMUTABLE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    f jsonb;
BEGIN
    BEGIN
        f := replace(p, E'\\u0000', E'\\u0001')::jsonb;
    EXCEPTION WHEN invalid_text_representation OR untranslatable_character THEN
        f := NULL;
    END;
    IF f IS NULL OR jsonb_typeof(f) <> 'object' THEN
        RAISE EXCEPTION 'an audit record needs an event and a JSON object of fields' USING ERRCODE = '22023';
    END IF;
    RETURN f;
END
$$;

-- What a gateway may copy, and an escalation's own line: as in version 5.
CREATE OR REPLACE FUNCTION holdpoint.check_escalated(p_audits text[]) RETURNS void
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    FOR n IN 1 .. coalesce(cardinality(p_audits), 0) LOOP
        IF holdpoint.fields_object(p_audits[n]) ?| ARRAY['decided_by', 'decision', 'reviewer', 'via', 'approvers', 'db_role', 'seq', 'ts', 'prev', 'event'] THEN
            RAISE EXCEPTION 'an escalation''s record may not name a decision, a decider or the chain''s fields'
                USING ERRCODE = '42501';
        END IF;
    END LOOP;
END
$$;

CREATE OR REPLACE FUNCTION holdpoint.check_copies(p_instance text, p_events text[], p_fields text[]) RETURNS void
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
        f := holdpoint.fields_object(p_fields[n]);
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

-- The chain's timestamps: STABLE, as to_char() is, so it is inlined into
-- the statements that call it instead of being planned on every call.
CREATE OR REPLACE FUNCTION holdpoint.ts_text(t timestamptz) RETURNS text
    LANGUAGE sql STABLE
    AS $$ SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;

-- review(): as in version 5 (v5-2.sql says what it does), parsing less.
CREATE OR REPLACE FUNCTION holdpoint.review(p_id text, p_instance text, p_reviewer text, p_via text, p_action text,
                                 p_args text, p_scope text, p_reason text)
    RETURNS TABLE (outcome text, reviewer text, decided_by text, decided_at timestamptz, holder text,
                   state text, decided_by_instance text, approvals integer, required integer, message text,
                   decision text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    now_ts timestamptz := clock_timestamp();
    who text := holdpoint.reviewer_for_login(p_reviewer);
    via text := left(coalesce(nullif(p_via, ''), 'console'), 64);
    r record;
    item jsonb;           -- the stored item, parsed once
    spec jsonb;
    need integer := 1;
    exclude boolean := false;
    reset boolean := true;
    requester text;
    stands text;          -- the arguments an approval approves, as stored
    voted_args text;
    hash text;
    action text := p_action;
    review_text text;
    decision_text text;
    names text[];
    n integer;
    deciders text;
    extra jsonb;
    decided_args text;
    reason_text text;
BEGIN
    IF p_action IS NULL OR p_action NOT IN ('approve', 'edit', 'deny', 'halt') THEN
        RAISE EXCEPTION 'action must be approve, edit, deny or halt' USING ERRCODE = '22023';
    END IF;
    IF coalesce(p_scope, 'call') NOT IN ('call', 'turn', 'session') THEN
        RAISE EXCEPTION 'scope must be call, turn or session' USING ERRCODE = '22023';
    END IF;
    IF p_args IS NOT NULL AND NOT holdpoint.is_json_object(p_args) THEN
        RAISE EXCEPTION 'the arguments must be a JSON object' USING ERRCODE = '22023';
    END IF;
    IF p_action = 'edit' AND p_args IS NULL THEN
        RAISE EXCEPTION 'an edit needs the arguments it runs' USING ERRCODE = '22023';
    END IF;
    PERFORM holdpoint.check_instance(p_instance, false);

    SELECT i.* INTO r FROM holdpoint.items i WHERE i.id = p_id FOR UPDATE;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'unknown_item'::text, who, NULL::text, NULL::timestamptz, NULL::text, NULL::text,
                            NULL::text, 0, 0, NULL::text, NULL::text;
        RETURN;
    END IF;
    IF r.state = 'pending' AND r.deadline <= now_ts THEN
        PERFORM holdpoint.expire_items(p_instance);
        SELECT i.* INTO r FROM holdpoint.items i WHERE i.id = p_id;
    END IF;
    IF r.state <> 'pending' THEN
        RETURN QUERY SELECT 'already_decided'::text, who, r.decided_by, r.decided_at, NULL::text, r.state,
                            r.decided_by_instance, 0, 0, NULL::text, r.decision;
        RETURN;
    END IF;
    IF p_action <> 'halt' AND r.claimed_by IS NOT NULL AND r.claimed_by <> p_instance AND r.claim_until > now_ts THEN
        RETURN QUERY SELECT 'claimed'::text, who, NULL::text, NULL::timestamptz, r.claim_name, r.state,
                            NULL::text, 0, 0, NULL::text, NULL::text;
        RETURN;
    END IF;

    item := replace(r.item, E'\\u0000', E'\\u0001')::jsonb;
    spec := item -> 'approvals';
    IF jsonb_typeof(spec) = 'object' THEN
        IF jsonb_typeof(spec -> 'required') = 'number' THEN
            need := least(greatest((spec ->> 'required')::numeric, 1), 10)::integer;
        END IF;
        exclude := coalesce(jsonb_typeof(spec -> 'exclude_requester') = 'boolean'
                            AND (spec ->> 'exclude_requester')::boolean, false);
        reset := coalesce(spec ->> 'on_edit', 'reset') <> 'keep';
        requester := item ->> 'requester';
    END IF;
    -- What stands, byte for byte (json, not jsonb, keeps the text), read
    -- only when something compares, votes for or applies it: an approval
    -- that names arguments or needs a count, or a proposed edit. A \u0000
    -- in it cannot be extracted as such; then its stand-in is.
    IF r.proposal IS NOT NULL OR (p_action = 'approve' AND (p_args IS NOT NULL OR need > 1 OR exclude)) THEN
        BEGIN
            stands := coalesce(r.proposal::json -> 'args',
                               r.item::json -> CASE WHEN item ? 'proposed_args' THEN 'proposed_args' ELSE 'args' END)::text;
        EXCEPTION WHEN untranslatable_character THEN
            stands := coalesce(replace(r.proposal, E'\\u0000', E'\\u0001')::json -> 'args',
                               replace(r.item, E'\\u0000', E'\\u0001')::json
                                   -> CASE WHEN item ? 'proposed_args' THEN 'proposed_args' ELSE 'args' END)::text;
        END;
        IF stands IS NULL OR NOT holdpoint.is_json_object(stands) THEN
            stands := '{}';
        END IF;
    END IF;
    IF p_action = 'approve' AND p_args IS NOT NULL
       AND replace(p_args, E'\\u0000', E'\\u0001')::jsonb <> replace(stands, E'\\u0000', E'\\u0001')::jsonb THEN
        RETURN QUERY SELECT 'refused'::text, who, NULL::text, NULL::timestamptz, NULL::text, r.state, NULL::text,
                            0, need, 'the arguments changed since you looked: someone proposed an edit; review it again'::text,
                            NULL::text;
        RETURN;
    END IF;
    -- An edit to what an edit proposed already is an approval of it.
    IF p_action = 'edit' AND r.proposal IS NOT NULL
       AND replace(p_args, E'\\u0000', E'\\u0001')::jsonb = replace(stands, E'\\u0000', E'\\u0001')::jsonb THEN
        action := 'approve';
    END IF;
    review_text := '{"action":' || to_json(action)::text
        || CASE WHEN action = 'edit' THEN ',"args":' || p_args ELSE '' END
        || CASE WHEN coalesce(p_reason, '') = '' THEN '' ELSE ',"reason":' || to_json(p_reason)::text END
        || CASE WHEN coalesce(p_scope, 'call') = 'call' THEN '' ELSE ',"scope":' || to_json(p_scope)::text END
        || '}';
    decision_text := CASE action
        WHEN 'deny' THEN 'deny' WHEN 'halt' THEN 'halt' WHEN 'edit' THEN 'modify'
        ELSE CASE WHEN r.proposal IS NOT NULL OR jsonb_typeof(item -> 'proposed_args') = 'object'
                  THEN 'modify' ELSE 'allow' END END;
    IF action = 'approve' AND r.proposal IS NOT NULL THEN
        review_text := r.proposal; -- the approval completes the edit proposed
    END IF;
    -- The reviewer's words, else what the gateway's planner says for the
    -- action (engine/reviewdecision.cpp).
    reason_text := coalesce(nullif(p_reason, ''), CASE decision_text
        WHEN 'allow' THEN 'approved by a reviewer' WHEN 'modify' THEN 'approved with edited arguments by a reviewer'
        WHEN 'halt' THEN 'turn halted by a reviewer' ELSE 'denied by a reviewer' END);
    decided_args := CASE WHEN action = 'edit' THEN p_args
                         WHEN action = 'approve' AND r.proposal IS NOT NULL THEN stands END;

    IF action IN ('approve', 'edit') AND (need > 1 OR exclude) THEN
        -- exclude_requester covers every name the login decides as.
        IF exclude AND requester IS NOT NULL AND (session_user = requester OR EXISTS (
                SELECT 1 FROM holdpoint.reviewers v
                 WHERE v.name = ANY (holdpoint.login_names()) AND (v.os_user = requester OR v.name = requester))) THEN
            RETURN QUERY SELECT 'refused'::text, who, NULL::text, NULL::timestamptz, NULL::text, r.state, NULL::text,
                                0, need, format('%s started this agent (as OS user %s), and this call needs approval from someone else',
                                                who, requester), NULL::text;
            RETURN;
        END IF;
        voted_args := CASE WHEN action = 'edit' THEN p_args ELSE stands END;
        hash := holdpoint.args_digest(voted_args);
        IF action = 'approve' AND EXISTS (
                SELECT 1 FROM holdpoint.votes v JOIN holdpoint.reviewers w ON w.name = v.reviewer AND NOT w.disabled
                 WHERE v.item_id = p_id AND (v.reviewer = who OR v.login = session_user)
                   AND (v.args_hash = hash OR NOT reset)) THEN
            n := cardinality(holdpoint.counted_votes(p_id, hash, reset));
            RETURN QUERY SELECT 'refused'::text, who, NULL::text, NULL::timestamptz, NULL::text, r.state, NULL::text,
                                n, need,
                                CASE WHEN EXISTS (SELECT 1 FROM holdpoint.votes v WHERE v.item_id = p_id AND v.reviewer = who)
                                THEN format('%s approved these arguments already; waiting for someone other than you (%s/%s approvals)',
                                            who, n, need)
                                ELSE format('the database login %s approved these arguments already as %s, and one login counts as one person; waiting for someone with a login of their own (%s/%s approvals)',
                                            session_user, (SELECT string_agg(v.reviewer, ', ') FROM holdpoint.votes v
                                                            WHERE v.item_id = p_id AND v.login = session_user), n, need)
                                END, NULL::text;
            RETURN;
        END IF;
        -- One vote per person: the login's earlier vote, under any name, goes.
        DELETE FROM holdpoint.votes v WHERE v.item_id = p_id AND (v.reviewer = who OR v.login = session_user);
        IF action = 'edit' THEN
            IF reset THEN
                DELETE FROM holdpoint.votes v WHERE v.item_id = p_id;
            END IF;
            UPDATE holdpoint.items i SET proposal = review_text, proposal_hash = hash WHERE i.id = p_id;
        END IF;
        INSERT INTO holdpoint.votes (item_id, reviewer, via, args, args_hash, edit, at, login)
             VALUES (p_id, who, via, voted_args, hash, action = 'edit', now_ts, session_user);
        names := holdpoint.counted_votes(p_id, hash, reset);
        n := cardinality(names);
        extra := jsonb_build_object('item', p_id, 'call_id', r.call_id, 'session', r.session_id,
                                    'gateway', r.gateway, 'tool', r.tool, 'reviewer', who,
                                    'decided_by', 'human:' || who, 'via', via, 'verdict', action,
                                    'args_sha256', hash, 'approvals', n, 'required', need);
        IF r.turn_id IS NOT NULL THEN
            extra := extra || jsonb_build_object('turn', r.turn_id);
        END IF;
        PERFORM holdpoint.audit_append('vote', p_instance,
            holdpoint.with_fields('{"args":' || voted_args || '}', extra));
        IF n < need THEN
            PERFORM pg_notify('holdpoint', 'vote ' || p_id);
            RETURN QUERY SELECT 'voted'::text, who, NULL::text, NULL::timestamptz, NULL::text, r.state, NULL::text,
                                n, need, NULL::text, NULL::text;
            RETURN;
        END IF;
        deciders := 'human:' || array_to_string(names, ',human:');
        extra := jsonb_build_object('decided_by', deciders, 'reviewer', who, 'via', via,
                                    'approvers', to_jsonb(names));
    ELSE
        deciders := 'human:' || who;
        extra := jsonb_build_object('decided_by', deciders, 'reviewer', who, 'via', via);
    END IF;

    UPDATE holdpoint.items i
       SET state = 'decided', decision = decision_text, review = review_text, reason = reason_text, code = NULL,
           decided_by = deciders, decided_at = now_ts, decided_by_instance = p_instance,
           decided_role = session_user, claimed_by = NULL, claim_name = NULL, claim_until = NULL
     WHERE i.id = p_id;
    -- The decision's line, from the row and the server's outcome.
    extra := extra || jsonb_strip_nulls(jsonb_build_object(
        'call_id', r.call_id, 'decision', decision_text, 'gateway', r.gateway, 'item', p_id,
        'reason', reason_text, 'session', r.session_id, 'state', 'decided', 'tool', r.tool, 'turn', r.turn_id,
        'scope', nullif(p_scope, 'call')));
    PERFORM holdpoint.audit_append('decision', p_instance,
        holdpoint.with_fields(CASE WHEN decided_args IS NULL THEN '{}' ELSE '{"args":' || decided_args || '}' END,
                              extra));
    PERFORM pg_notify('holdpoint', 'decided ' || p_id);
    RETURN QUERY SELECT 'decided'::text, who, deciders, now_ts, NULL::text, 'decided'::text, p_instance,
                        coalesce(cardinality(names), 0), need, NULL::text, decision_text;
END
$$;