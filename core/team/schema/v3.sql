-- SPDX-License-Identifier: Apache-2.0
-- Team schema version 3 (TEAM.md "Reviewers" and "Approvals"): who decided
-- is the reviewer the database login maps to, never a name a client sends;
-- and a call can need several people's approval.

-- A reviewer: a person, by the name decisions carry ("human:<name>").
-- `os_user` is the OS user they run agents as, so a rule with
-- exclude_requester keeps them from approving their own agent's calls.
CREATE TABLE holdpoint.reviewers (
    name      text PRIMARY KEY CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$'),
    os_user   text NOT NULL CHECK (length(os_user) BETWEEN 1 AND 256),
    disabled  boolean NOT NULL DEFAULT false,
    added_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    added_by  text NOT NULL DEFAULT session_user
);

-- Which PostgreSQL login roles may decide as which reviewer. A login may
-- map to several names (a shared console); `--reviewer` picks among them.
CREATE TABLE holdpoint.reviewer_logins (
    login text NOT NULL,
    name  text NOT NULL REFERENCES holdpoint.reviewers (name),
    PRIMARY KEY (login, name)
);

-- One approval per reviewer per item, of the arguments with `args_hash`
-- (SHA-256 of their canonical JSON, masked, as the client computed it).
CREATE TABLE holdpoint.votes (
    item_id   text NOT NULL REFERENCES holdpoint.items (id),
    reviewer  text NOT NULL,
    via       text NOT NULL,
    args      text NOT NULL CHECK (holdpoint.is_json_object(args)),
    args_hash text NOT NULL,
    edit      boolean NOT NULL,
    at        timestamptz NOT NULL,
    PRIMARY KEY (item_id, reviewer)
);

-- The latest edit a reviewer proposed on a pending item: the review (args
-- masked) and its hash. NULL: approvals approve the item's own arguments.
ALTER TABLE holdpoint.items ADD COLUMN proposal text CHECK (holdpoint.is_json_object(proposal));
ALTER TABLE holdpoint.items ADD COLUMN proposal_hash text;

-- The reviewer the calling login decides as: `p_requested` if the login
-- maps to it, else the login's only name. Anything else is refused with
-- what to do.
CREATE FUNCTION holdpoint.reviewer_for_login(p_requested text) RETURNS text
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    names text[];
BEGIN
    SELECT coalesce(array_agg(r.name ORDER BY r.name), '{}') INTO names
      FROM holdpoint.reviewer_logins l JOIN holdpoint.reviewers r ON r.name = l.name
     WHERE l.login = session_user AND NOT r.disabled;
    IF cardinality(names) = 0 THEN
        RAISE EXCEPTION 'the database login % is not a reviewer, so it may not decide', session_user
            USING ERRCODE = '28000',
                  HINT = format('the database owner adds it with `holdpoint-ctl team reviewer add NAME --role %s`',
                                session_user);
    END IF;
    IF coalesce(p_requested, '') = '' THEN
        IF cardinality(names) > 1 THEN
            RAISE EXCEPTION 'the database login % decides as one of: %; say which with --reviewer NAME',
                session_user, array_to_string(names, ', ') USING ERRCODE = '28000';
        END IF;
        RETURN names[1];
    END IF;
    IF NOT p_requested = ANY (names) THEN
        RAISE EXCEPTION 'the database login % may not decide as "%"; it decides as: %',
            session_user, p_requested, array_to_string(names, ', ') USING ERRCODE = '28000';
    END IF;
    RETURN p_requested;
END
$$;

-- An audit record's fields (a JSON object's text, kept byte for byte) with
-- `p_extra`'s added after them.
CREATE FUNCTION holdpoint.with_fields(p_fields text, p_extra jsonb) RETURNS text
    LANGUAGE plpgsql IMMUTABLE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    body text := btrim(p_fields, E' \t\r\n');
    extra text := p_extra::text;
BEGIN
    body := btrim(substr(body, 2, length(body) - 2), E' \t\r\n');
    extra := btrim(substr(extra, 2, length(extra) - 2), E' \t\r\n');
    RETURN '{' || body || CASE WHEN body = '' OR extra = '' THEN '' ELSE ',' END || extra || '}';
END
$$;

-- The old decide() took the decider's name from the client: gone.
DROP FUNCTION holdpoint.decide(text, text, text, text, text, text, text);

-- A reviewer's answer to a pending item (TEAM.md "Approvals"). The reviewer
-- is the login's (reviewer_for_login). Deny and halt end the item at once.
-- An approve or an edit is a vote on an item that needs several people,
-- and the vote that completes the count decides the item in the same
-- transaction, so an item is still decided exactly once.
--   p_action: approve | edit | deny | halt
--   p_args, p_args_hash: the arguments approved (masked) and their hash
--   p_decision: what the item gets if this ends it (allow, modify, deny, halt)
--   p_review: the reviewer's answer (args masked), passed on to the gateway
-- outcome: decided | voted | refused | already_decided | claimed | unknown_item
CREATE FUNCTION holdpoint.review(p_id text, p_instance text, p_reviewer text, p_via text, p_action text,
                                 p_args text, p_args_hash text, p_decision text, p_review text,
                                 p_reason text, p_audit text)
    RETURNS TABLE (outcome text, reviewer text, decided_by text, decided_at timestamptz, holder text,
                   state text, decided_by_instance text, approvals integer, required integer, message text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    now_ts timestamptz := clock_timestamp();
    who text := holdpoint.reviewer_for_login(p_reviewer);
    r record;
    spec json;
    need integer := 1;
    exclude boolean := false;
    reset boolean := true;
    requester text;
    current_hash text;
    review_text text := p_review;
    decision_text text := p_decision;
    names text[];
    n integer;
    deciders text;
    extra jsonb;
BEGIN
    IF p_action NOT IN ('approve', 'edit', 'deny', 'halt') THEN
        RAISE EXCEPTION 'action must be approve, edit, deny or halt' USING ERRCODE = '22023';
    END IF;
    IF p_review IS NULL OR NOT holdpoint.is_json_object(p_review) THEN
        RAISE EXCEPTION 'a decision needs the review as a JSON object' USING ERRCODE = '22023';
    END IF;
    IF p_audit IS NULL OR NOT holdpoint.is_json_object(p_audit) THEN
        RAISE EXCEPTION 'a decision needs its audit fields as a JSON object' USING ERRCODE = '22023';
    END IF;
    -- The decider in the record is the authenticated one: the client may
    -- not name one.
    -- (jsonb cannot hold U+0000; the escape's stand-in changes no key.)
    IF replace(p_audit, E'\\u0000', E'\\u0001')::jsonb ?| ARRAY['decided_by', 'reviewer', 'via', 'approvers'] THEN
        RAISE EXCEPTION 'the audit fields may not name the decider: the database does' USING ERRCODE = '22023';
    END IF;

    SELECT i.* INTO r FROM holdpoint.items i WHERE i.id = p_id FOR UPDATE;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'unknown_item'::text, who, NULL::text, NULL::timestamptz, NULL::text, NULL::text,
                            NULL::text, 0, 0, NULL::text;
        RETURN;
    END IF;
    IF r.state = 'pending' AND r.deadline <= now_ts THEN
        PERFORM holdpoint.expire_due(p_instance);
        SELECT i.* INTO r FROM holdpoint.items i WHERE i.id = p_id;
    END IF;
    IF r.state <> 'pending' THEN
        RETURN QUERY SELECT 'already_decided'::text, who, r.decided_by, r.decided_at, NULL::text, r.state,
                            r.decided_by_instance, 0, 0, NULL::text;
        RETURN;
    END IF;
    IF p_action <> 'halt' AND r.claimed_by IS NOT NULL AND r.claimed_by <> p_instance AND r.claim_until > now_ts THEN
        RETURN QUERY SELECT 'claimed'::text, who, NULL::text, NULL::timestamptz, r.claim_name, r.state,
                            NULL::text, 0, 0, NULL::text;
        RETURN;
    END IF;

    spec := replace(r.item, E'\\u0000', E'\\u0001')::json -> 'approvals';
    IF json_typeof(spec) = 'object' THEN
        IF json_typeof(spec -> 'required') = 'number' THEN
            need := least(greatest((spec ->> 'required')::numeric, 1), 10)::integer;
        END IF;
        exclude := coalesce(json_typeof(spec -> 'exclude_requester') = 'boolean'
                            AND (spec ->> 'exclude_requester')::boolean, false);
        reset := coalesce(spec ->> 'on_edit', 'reset') <> 'keep';
        requester := replace(r.item, E'\\u0000', E'\\u0001')::json ->> 'requester';
    END IF;

    IF p_action IN ('approve', 'edit') AND (need > 1 OR exclude) THEN
        IF p_args IS NULL OR NOT holdpoint.is_json_object(p_args) OR coalesce(p_args_hash, '') = '' THEN
            RAISE EXCEPTION 'an approval needs the arguments and their hash' USING ERRCODE = '22023';
        END IF;
        IF exclude AND requester IS NOT NULL AND EXISTS (
                SELECT 1 FROM holdpoint.reviewers v WHERE v.name = who AND (v.os_user = requester OR v.name = requester)) THEN
            RETURN QUERY SELECT 'refused'::text, who, NULL::text, NULL::timestamptz, NULL::text, r.state, NULL::text,
                                0, need, format('%s started this agent (as OS user %s), and this call needs approval from someone else',
                                                who, requester);
            RETURN;
        END IF;
        current_hash := r.proposal_hash;
        IF p_action = 'approve' AND current_hash IS NOT NULL AND p_args_hash <> current_hash THEN
            RETURN QUERY SELECT 'refused'::text, who, NULL::text, NULL::timestamptz, NULL::text, r.state, NULL::text,
                                0, need, 'the arguments changed since you looked: someone proposed an edit; review it again'::text;
            RETURN;
        END IF;
        IF p_action = 'edit' AND p_args_hash IS NOT DISTINCT FROM coalesce(current_hash, p_args_hash || '-') THEN
            p_action := 'approve'; -- an edit to what stands is an approval of it
        END IF;
        IF p_action = 'approve' AND EXISTS (
                SELECT 1 FROM holdpoint.votes v
                 WHERE v.item_id = p_id AND v.reviewer = who AND (v.args_hash = p_args_hash OR NOT reset)) THEN
            SELECT count(*) INTO n FROM holdpoint.votes v
             WHERE v.item_id = p_id AND (v.args_hash = p_args_hash OR NOT reset);
            RETURN QUERY SELECT 'refused'::text, who, NULL::text, NULL::timestamptz, NULL::text, r.state, NULL::text,
                                n, need, format('%s approved these arguments already; waiting for someone other than you (%s/%s approvals)',
                                                who, n, need);
            RETURN;
        END IF;
        DELETE FROM holdpoint.votes v WHERE v.item_id = p_id AND v.reviewer = who;
        IF p_action = 'edit' THEN
            IF reset THEN
                DELETE FROM holdpoint.votes v WHERE v.item_id = p_id;
            END IF;
            UPDATE holdpoint.items i SET proposal = p_review, proposal_hash = p_args_hash WHERE i.id = p_id;
            current_hash := p_args_hash;
        ELSIF current_hash IS NOT NULL THEN
            -- The approval completes an edit someone proposed: the decision
            -- is that edit.
            review_text := r.proposal;
            decision_text := 'modify';
        END IF;
        INSERT INTO holdpoint.votes (item_id, reviewer, via, args, args_hash, edit, at)
             VALUES (p_id, who, p_via, p_args, p_args_hash, p_action = 'edit', now_ts);
        SELECT coalesce(array_agg(v.reviewer ORDER BY v.at, v.reviewer), '{}') INTO names
          FROM holdpoint.votes v WHERE v.item_id = p_id AND (v.args_hash = p_args_hash OR NOT reset);
        n := cardinality(names);
        -- The vote's record: the item as the row has it, who, how, and the
        -- arguments approved, byte for byte.
        extra := jsonb_build_object('item', p_id, 'call_id', r.call_id, 'session', r.session_id,
                                    'gateway', r.gateway, 'tool', r.tool, 'reviewer', who,
                                    'decided_by', 'human:' || who, 'via', p_via, 'verdict', p_action,
                                    'args_sha256', p_args_hash, 'approvals', n, 'required', need);
        IF r.turn_id IS NOT NULL THEN
            extra := extra || jsonb_build_object('turn', r.turn_id);
        END IF;
        PERFORM holdpoint.audit_append('vote', p_instance,
            holdpoint.with_fields('{"args":' || p_args || '}', extra));
        IF n < need THEN
            PERFORM pg_notify('holdpoint', 'vote ' || p_id);
            RETURN QUERY SELECT 'voted'::text, who, NULL::text, NULL::timestamptz, NULL::text, r.state, NULL::text,
                                n, need, NULL::text;
            RETURN;
        END IF;
        deciders := 'human:' || array_to_string(names, ',human:');
        extra := jsonb_build_object('decided_by', deciders, 'reviewer', who, 'via', p_via,
                                    'approvers', to_jsonb(names));
    ELSE
        deciders := 'human:' || who;
        extra := jsonb_build_object('decided_by', deciders, 'reviewer', who, 'via', p_via);
    END IF;

    UPDATE holdpoint.items i
       SET state = 'decided', decision = decision_text, review = review_text, reason = p_reason, code = NULL,
           decided_by = deciders, decided_at = now_ts, decided_by_instance = p_instance,
           decided_role = session_user, claimed_by = NULL, claim_name = NULL, claim_until = NULL
     WHERE i.id = p_id;
    PERFORM holdpoint.audit_append('decision', p_instance, holdpoint.with_fields(p_audit, extra));
    PERFORM pg_notify('holdpoint', 'decided ' || p_id);
    RETURN QUERY SELECT 'decided'::text, who, deciders, now_ts, NULL::text, 'decided'::text, p_instance,
                        coalesce(cardinality(names), 0), need, NULL::text;
END
$$;

-- Adding, listing and disabling reviewers is the database owner's: these
-- run as the caller, who must be allowed to write the tables.
CREATE FUNCTION holdpoint.reviewer_add(p_name text, p_login text, p_os_user text) RETURNS void
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    INSERT INTO holdpoint.reviewers (name, os_user) VALUES (p_name, coalesce(nullif(p_os_user, ''), p_name))
        ON CONFLICT (name) DO UPDATE SET disabled = false,
            os_user = CASE WHEN coalesce(p_os_user, '') = '' THEN holdpoint.reviewers.os_user ELSE p_os_user END;
    IF coalesce(p_login, '') <> '' THEN
        INSERT INTO holdpoint.reviewer_logins (login, name) VALUES (p_login, p_name) ON CONFLICT DO NOTHING;
    END IF;
    PERFORM holdpoint.audit_append('reviewer', NULL,
        jsonb_build_object('action', 'add', 'reviewer', p_name, 'login', p_login,
                           'os_user', coalesce(nullif(p_os_user, ''), p_name))::text);
END
$$;

CREATE FUNCTION holdpoint.reviewer_disable(p_name text) RETURNS boolean
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    UPDATE holdpoint.reviewers SET disabled = true WHERE name = p_name AND NOT disabled;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    PERFORM holdpoint.audit_append('reviewer', NULL,
        jsonb_build_object('action', 'disable', 'reviewer', p_name)::text);
    RETURN true;
END
$$;
