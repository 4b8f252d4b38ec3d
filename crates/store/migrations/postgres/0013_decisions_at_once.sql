-- PostgreSQL alone: a session's start and a message's turn decided by the
-- server in one statement, so that no lock is held while a process waits
-- on the network (SQLite's writer thread decides in turn with no round
-- trip). Each function takes the allowed case of a decision that the
-- platform otherwise takes in a transaction (`Platform::create_session`,
-- `Platform::send_message`): it acts only when that decision would allow
-- the action, and otherwise changes nothing and says what it read, for
-- the platform to refuse (a start records its refusal too), or to decide
-- in a transaction after all. The statements of a function each see what
-- committed before they ran (READ COMMITTED), so that what is counted
-- once the lock is held is current.
-- Called again with the same ledger entry (a call retried after the
-- connection dropped), a function that acted returns the same again.

-- Takes the next user turn of session p_session, said p_content at p_now
-- (ms; no earlier than the session's last change), as turn p_turn with
-- ledger entry p_entry: when the session runs, its campaign's window is
-- open and a turn is left (the budget's max_turns, else
-- p_default_max_turns). Returns the campaign, the target, the turn's
-- 0-based index and the session's limit with each turn before it (role,
-- content, steps; NULLs when there is none), in order; no row when the
-- turn was not taken.
CREATE FUNCTION take_session_turn(p_session text, p_now bigint, p_entry text, p_turn text,
    p_content text, p_default_max_turns bigint)
RETURNS TABLE (campaign_id text, target_id text, turn_index bigint, max_turns bigint,
    role text, content text, steps text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    s record;
    v_max bigint;
    v_index bigint;
    v_now bigint;
BEGIN
    SELECT x.campaign_id, x.target_id, x.status, x.turn_count, x.updated_at,
           c.status AS campaign_status, c.window_start, c.window_end, c.budget
      INTO s
      FROM exploration_sessions x JOIN campaigns c ON c.id = x.campaign_id
     WHERE x.id = p_session
       FOR NO KEY UPDATE OF x;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    v_max := COALESCE((s.budget::jsonb ->> 'max_turns')::bigint, p_default_max_turns);
    SELECT t.seq / 2 INTO v_index FROM session_turns t WHERE t.id = p_turn;
    IF v_index IS NULL THEN
        IF s.status <> 'running' OR s.campaign_status NOT IN ('running', 'scheduled')
           OR p_now < s.window_start OR p_now >= s.window_end OR s.turn_count >= v_max THEN
            RETURN;
        END IF;
        v_index := s.turn_count;
        v_now := GREATEST(p_now, s.updated_at);
        UPDATE exploration_sessions SET turn_count = turn_count + 1, updated_at = v_now
         WHERE id = p_session;
        INSERT INTO session_turns (id, session_id, seq, role, content, latency_ms, created_at)
        VALUES (p_turn, p_session, v_index * 2, 'user', p_content, NULL, v_now);
        INSERT INTO ledger_entries (id, campaign_id, session_id, action, allowed, reason_code, at)
        VALUES (p_entry, s.campaign_id, p_session, 'message', true, NULL, v_now);
    END IF;
    RETURN QUERY
        SELECT s.campaign_id::text, s.target_id::text, v_index, v_max,
               t.role::text, t.content::text, t.steps::text
          FROM (SELECT 1) AS one
          LEFT JOIN session_turns t ON t.session_id = p_session AND t.seq < v_index * 2
         ORDER BY t.seq;
END
$$;

-- Starts session p_session of campaign p_campaign with ledger entry
-- p_entry, at p_now (ms; no earlier than the campaign's last start), when
-- the platform's guardrails would: the campaign's window is open, fewer
-- than p_max_sessions of its sessions have started (those abandoned
-- apart) and the last start is p_min_interval_ms old or more. The
-- session is stored as `Tx::insert_session` stores it, counted in its
-- seed cell (p_cell_persona, p_cell_goal) and in the session tally under
-- the key the platform computed for it (p_key_*). Refused, the ledger row
-- is appended with the code the platform gives that guardrail
-- (p_refuse_window, p_refuse_budget, p_refuse_interval: the checks in
-- the platform's order). While a session of the campaign runs idle since
-- p_idle_before (left open past its lease), nothing is decided: the
-- platform gives its slot back first, in a transaction. A refusal takes
-- no lock (see the first pass below). Returns whether
-- the session started, the code it was refused with, the campaign's
-- status, the sessions counted before it, the last start (ms), the idle
-- sessions and the time of the decision (ms); no row when there is no
-- such campaign.
CREATE FUNCTION start_session(p_campaign text, p_now bigint, p_idle_before bigint,
    p_max_sessions bigint, p_min_interval_ms bigint, p_entry text,
    p_refuse_window text, p_refuse_budget text, p_refuse_interval text,
    p_session text, p_target text, p_persona text, p_goal text, p_seed_ref text,
    p_status text, p_trigger text, p_judge_status text, p_played_by text, p_user_model text,
    p_cell_persona text, p_cell_goal text,
    p_key_status text, p_key_end_reason text, p_key_trigger text, p_key_judge_status text,
    p_key_seeded boolean, p_key_persona text, p_key_goal text, p_key_has_experience boolean,
    p_key_record boolean, p_key_goal_achieved boolean, p_key_emotion text,
    p_key_simulator_fault boolean)
RETURNS TABLE (started boolean, refused text, campaign_status text, used bigint,
    last_start bigint, idle bigint, at bigint)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    v_decided boolean;
    v_allowed boolean;
    v_refused text;
    v_status text;
    v_start bigint;
    v_end bigint;
    v_used bigint;
    v_last bigint;
    v_idle bigint;
    v_now bigint;
    v_ordinal bigint;
    v_pass integer;
BEGIN
    SELECT l.allowed, l.reason_code, l.at INTO v_allowed, v_refused, v_now
      FROM ledger_entries l WHERE l.id = p_entry;
    v_decided := FOUND;
    IF v_decided AND v_allowed THEN
        RETURN QUERY SELECT true, NULL::text, NULL::text, NULL::bigint, v_now, NULL::bigint, v_now;
        RETURN;
    END IF;
    -- The first pass reads what committed, with no lock: a refusal it
    -- finds stands (what commits meanwhile only starts more sessions, or
    -- gives back a slot after the refusal), so that refusals never wait
    -- on the campaign's lock. The second, the campaign locked, decides.
    FOR v_pass IN 1..2 LOOP
        IF v_pass = 1 THEN
            SELECT c.status, c.window_start, c.window_end INTO v_status, v_start, v_end
              FROM campaigns c WHERE c.id = p_campaign;
        ELSE
            SELECT c.status, c.window_start, c.window_end INTO v_status, v_start, v_end
              FROM campaigns c WHERE c.id = p_campaign
               FOR NO KEY UPDATE;
        END IF;
        IF NOT FOUND THEN
            RETURN;
        END IF;
        SELECT COUNT(*) - COUNT(CASE WHEN x.end_reason = 'abandoned' THEN 1 END),
               MAX(x.started_at),
               COUNT(CASE WHEN x.status = 'running' AND x.updated_at < p_idle_before THEN 1 END)
          INTO v_used, v_last, v_idle
          FROM exploration_sessions x WHERE x.campaign_id = p_campaign;
        IF v_decided THEN
            RETURN QUERY SELECT false, v_refused, v_status::text, v_used, v_last, v_idle, v_now;
            RETURN;
        END IF;
        v_now := GREATEST(p_now, v_last);
        v_refused := CASE
            WHEN v_status NOT IN ('running', 'scheduled') OR v_now < v_start OR v_now >= v_end
                THEN p_refuse_window
            WHEN v_idle > 0 THEN NULL
            WHEN v_used >= p_max_sessions THEN p_refuse_budget
            WHEN v_last IS NOT NULL AND v_last + p_min_interval_ms > v_now THEN p_refuse_interval
        END;
        EXIT WHEN v_refused IS NOT NULL OR v_pass = 2;
    END LOOP;
    IF v_refused IS NOT NULL THEN
        INSERT INTO ledger_entries (id, campaign_id, session_id, action, allowed, reason_code, at)
        VALUES (p_entry, p_campaign, NULL, 'create', false, v_refused, v_now);
    END IF;
    IF v_refused IS NOT NULL OR v_idle > 0 THEN
        RETURN QUERY SELECT false, v_refused, v_status::text, v_used, v_last, v_idle, v_now;
        RETURN;
    END IF;
    INSERT INTO seed_cell_sessions AS cell (campaign_id, persona_id, goal_id, sessions)
    VALUES (p_campaign, p_cell_persona, p_cell_goal, 1)
    ON CONFLICT (campaign_id, persona_id, goal_id)
    DO UPDATE SET sessions = cell.sessions + 1
    RETURNING cell.sessions INTO v_ordinal;
    INSERT INTO exploration_sessions (id, campaign_id, target_id, persona, goal, seed_ref, status,
        trigger_kind, judge_status, turn_count, started_at, created_at, updated_at,
        played_by, user_model, seed_ordinal)
    VALUES (p_session, p_campaign, p_target, p_persona, p_goal, p_seed_ref, p_status,
        p_trigger, p_judge_status, 0, v_now, v_now, v_now, p_played_by, p_user_model, v_ordinal);
    INSERT INTO session_tally AS t (campaign_id, status, end_reason, trigger_kind, judge_status,
        seeded, persona_id, goal_id, has_experience, record, goal_achieved, emotion,
        simulator_fault, sessions, issues)
    VALUES (p_campaign, p_key_status, p_key_end_reason, p_key_trigger, p_key_judge_status,
        p_key_seeded, p_key_persona, p_key_goal, p_key_has_experience, p_key_record,
        p_key_goal_achieved, p_key_emotion, p_key_simulator_fault, 1, 0)
    ON CONFLICT (campaign_id, status, end_reason, trigger_kind, judge_status, seeded,
        persona_id, goal_id, has_experience, record, goal_achieved, emotion, simulator_fault)
    DO UPDATE SET sessions = t.sessions + 1;
    INSERT INTO ledger_entries (id, campaign_id, session_id, action, allowed, reason_code, at)
    VALUES (p_entry, p_campaign, p_session, 'create', true, NULL, v_now);
    RETURN QUERY SELECT true, NULL::text, v_status::text, v_used, v_last, v_idle, v_now;
END
$$;
