-- SPDX-License-Identifier: Apache-2.0
-- Team schema version 5, second part (applied with v5.sql, in the same
-- transaction): decisions, votes and grants. See v5.sql for what it is.

-- Every enabled reviewer name of the calling login.
CREATE FUNCTION holdpoint.login_names() RETURNS text[]
    LANGUAGE sql STABLE
    SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(array_agg(r.name ORDER BY r.name), '{}')
      FROM holdpoint.reviewer_logins l JOIN holdpoint.reviewers r ON r.name = l.name
     WHERE l.login = session_user AND NOT r.disabled
$$;

-- The approvals that count on an item for the arguments with p_hash (all
-- of them with p_reset false): one per login, of enabled reviewers only,
-- in the order given. A vote from before version 5 (no login) counts as
-- its reviewer's.
CREATE FUNCTION holdpoint.counted_votes(p_id text, p_hash text, p_reset boolean) RETURNS text[]
    LANGUAGE sql STABLE
    SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(array_agg(c.reviewer ORDER BY c.at, c.reviewer), '{}')
      FROM (SELECT DISTINCT ON (coalesce(v.login, '#' || v.reviewer)) v.reviewer, v.at
              FROM holdpoint.votes v JOIN holdpoint.reviewers r ON r.name = v.reviewer AND NOT r.disabled
             WHERE v.item_id = p_id AND (v.args_hash = p_hash OR NOT p_reset)
             ORDER BY coalesce(v.login, '#' || v.reviewer), v.at) c
$$;

-- A reviewer's answer to a pending item (TEAM.md "Approvals"). The caller
-- gives the action and, for an edit, the arguments (masked); for an
-- approval, the arguments it was shown may be given, and the approval is
-- refused if what stands differs. Everything else is the server's:
-- - who decides: reviewer_for_login(p_reviewer), from session_user;
-- - what an approval approves: the edit proposed last, else the
--   guardrail's proposed arguments, else the call's own, as stored;
-- - the votes, their hashes (args_digest), the count (counted_votes), and
--   whether it completes the quorum;
-- - the decision (approve: allow, or modify when it approves changed
--   arguments; edit: modify; deny; halt), the review text the gateway
--   applies, and the vote and decision audit lines.
-- outcome: decided | voted | refused | already_decided | claimed | unknown_item
DROP FUNCTION holdpoint.review(text, text, text, text, text, text, text, text, text, text, text);
CREATE FUNCTION holdpoint.review(p_id text, p_instance text, p_reviewer text, p_via text, p_action text,
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
    mine text[] := holdpoint.login_names();
    via text := left(coalesce(nullif(p_via, ''), 'console'), 64);
    r record;
    item json;
    spec json;
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

    item := replace(r.item, E'\\u0000', E'\\u0001')::json;
    spec := item -> 'approvals';
    IF json_typeof(spec) = 'object' THEN
        IF json_typeof(spec -> 'required') = 'number' THEN
            need := least(greatest((spec ->> 'required')::numeric, 1), 10)::integer;
        END IF;
        exclude := coalesce(json_typeof(spec -> 'exclude_requester') = 'boolean'
                            AND (spec ->> 'exclude_requester')::boolean, false);
        reset := coalesce(spec ->> 'on_edit', 'reset') <> 'keep';
        requester := item ->> 'requester';
    END IF;
    -- What stands, byte for byte (json, not jsonb, keeps the text). A
    -- \u0000 in it cannot be extracted as such; then its stand-in is.
    BEGIN
        stands := coalesce(r.proposal::json -> 'args', r.item::json -> 'proposed_args', r.item::json -> 'args')::text;
    EXCEPTION WHEN untranslatable_character THEN
        stands := coalesce(replace(r.proposal, E'\\u0000', E'\\u0001')::json -> 'args', item -> 'proposed_args',
                           item -> 'args')::text;
    END;
    IF stands IS NULL OR NOT holdpoint.is_json_object(stands) THEN
        stands := '{}';
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
        ELSE CASE WHEN r.proposal IS NOT NULL OR json_typeof(item -> 'proposed_args') = 'object'
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
                 WHERE v.name = ANY (mine) AND (v.os_user = requester OR v.name = requester))) THEN
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

-- Disabling a reviewer voids their votes on pending items at once (TEAM.md
-- "Reviewers"): a count never includes someone who may no longer decide,
-- and the void is in the audit. (counted_votes also skips disabled
-- reviewers, so a vote given while the disable commits cannot count.)
CREATE OR REPLACE FUNCTION holdpoint.reviewer_disable(p_name text) RETURNS boolean
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v record;
BEGIN
    UPDATE holdpoint.reviewers SET disabled = true WHERE name = p_name AND NOT disabled;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    PERFORM holdpoint.audit_append('reviewer', NULL,
        jsonb_build_object('action', 'disable', 'reviewer', p_name)::text);
    FOR v IN DELETE FROM holdpoint.votes x USING holdpoint.items i
              WHERE x.reviewer = p_name AND i.id = x.item_id AND i.state = 'pending'
              RETURNING x.item_id, x.args_hash
    LOOP
        PERFORM holdpoint.audit_append('vote_voided', NULL,
            jsonb_build_object('item', v.item_id, 'reviewer', p_name, 'args_sha256', v.args_hash,
                               'why', 'the reviewer was disabled')::text);
        PERFORM pg_notify('holdpoint', 'vote ' || v.item_id);
    END LOOP;
    RETURN true;
END
$$;
