//! The session operations: create, message, close, fail, and the reads
//! used for drill-down.

use super::guardrails::*;
use super::*;

impl Platform {
    /// Creates a `running` exploration session after the guardrail checks,
    /// in this order: campaign exists (404), campaign running (409
    /// `CAMPAIGN_NOT_RUNNING`), no auto trigger on the accelerated line
    /// (409 `AUTO_NOT_ALLOWED_ON_ACCELERATED_LINE`), seeds (auto sessions
    /// need a seed_ref into the seed set: 400 `INVALID_INPUT` for an
    /// unknown id, 409 `CONFLICT` when the campaign has no seeds), session
    /// budget (409 `SESSION_BUDGET_EXHAUSTED`), interval (409
    /// `INTERVAL_NOT_ELAPSED` with `next_allowed_at`).
    #[tracing::instrument(skip_all, fields(campaign_id = %req.campaign_id))]
    pub async fn create_session(&self, req: CreateSession) -> Result<ExplorationSession> {
        let persona = shape_json("persona", req.persona)?;
        let goal = shape_json("goal", req.goal)?;
        let trigger = req.trigger.unwrap_or_default();
        let played_by = req.played_by.unwrap_or_default();
        let user_model = shape_user_model(played_by, req.user_model)?;
        if let Some(s) = &req.seed_ref
            && let Some(v) = &s.variant
            && v.note.chars().count() > 2000
        {
            return Err(Error::invalid(
                "seed_ref.variant.note is longer than 2000 characters",
                "Say briefly how the variant differs from its seed.",
            ));
        }

        // Everything but the campaign's status is fixed at creation; the
        // status is read again inside the decision.
        let campaign = self.get_campaign(req.campaign_id).await?;
        let session_id = self.ids.next_id();
        let create = move |conn: &Connection, entry_id: Uuid, now: DateTime<Utc>| {
            let entry = Entry {
                id: entry_id,
                campaign_id: campaign.id,
                session_id: None,
                action: LedgerAction::Create,
                at: to_ms(now),
            };
            let status: String = conn
                .prepare_cached("SELECT status FROM campaigns WHERE id = ?")?
                .query_row(params![campaign.id.to_string()], |r| r.get(0))?;
            let mut window = CampaignWindow::of(&campaign);
            window.status = CampaignStatus::parse(&status)?;
            let (used, last): (i64, Option<i64>) = conn
                .prepare_cached(
                    "SELECT COUNT(*), MAX(started_at) FROM exploration_sessions WHERE campaign_id = ?",
                )?
                .query_row(params![campaign.id.to_string()], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })?;
            let decision = create_decision(
                &campaign,
                &window,
                trigger,
                req.seed_ref.as_ref(),
                used,
                last,
                now,
            );
            if let Err(refusal) = decision {
                return entry.refuse(conn, refusal);
            }
            let session = ExplorationSession {
                id: session_id,
                campaign_id: campaign.id,
                target_id: campaign.target_id,
                persona,
                goal,
                seed_ref: req.seed_ref,
                status: SessionStatus::Running,
                trigger,
                played_by,
                user_model,
                end_reason: None,
                experience: None,
                judge_status: "none".into(),
                judge_review: None,
                simulator_faults: None,
                turn_count: 0,
                failure_reason: None,
                started_at: now,
                ended_at: None,
                created_at: now,
                updated_at: now,
            };
            conn.prepare_cached(
                "INSERT INTO exploration_sessions (id, campaign_id, target_id, persona, goal, seed_ref, status,
                    trigger_kind, judge_status, turn_count, started_at, created_at, updated_at,
                    played_by, user_model)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'running', ?7, 'none', 0, ?8, ?8, ?8, ?9, ?10)",
            )?
            .execute(params![
                session.id.to_string(),
                session.campaign_id.to_string(),
                session.target_id.to_string(),
                serde_json::to_string(&session.persona)?,
                serde_json::to_string(&session.goal)?,
                session.seed_ref.as_ref().map(serde_json::to_string).transpose()?,
                session.trigger.as_str(),
                to_ms(now),
                session.played_by.as_str(),
                session.user_model,
            ])?;
            Entry {
                session_id: Some(session.id),
                ..entry
            }
            .allow(conn)?;
            Ok(Decided::Allowed(session))
        };
        let session = self.decide(create).await?;
        self.session_changed("session.create", session.campaign_id, session.id)
            .await;
        Ok(session)
    }

    /// Sends the virtual user's message to the target and returns the reply.
    #[tracing::instrument(skip(self, req))]
    pub async fn send_message(&self, session_id: Uuid, req: SendMessage) -> Result<MessageReply> {
        let content = req.content.trim().to_string();
        if content.is_empty() {
            return Err(Error::invalid(
                "content must not be empty",
                "Send what the virtual user says next.",
            ));
        }
        if content.len() > MAX_MESSAGE_BYTES {
            return Err(Error::invalid(
                "content is longer than 8 KiB",
                "Send shorter messages, as a real user would.",
            ));
        }

        // Reserve the turn: check + increment + user turn + ledger row, and
        // read the conversation so far, in one decision.
        let turn_id = self.ids.next_id();
        let reserve = move |conn: &Connection, session: &SessionState, entry: Entry, now| {
            if session.turn_count >= session.max_turns {
                let refusal = Error::new(
                    ErrorCode::TurnLimitReached,
                    format!(
                        "session {} has used its {} user turns",
                        session.id, session.max_turns
                    ),
                    "Close the session with its experience record (end_reason max_turns).",
                );
                return entry.refuse(conn, refusal);
            }
            let index = session.turn_count;
            let user_seq = i64::from(index) * 2;
            conn.prepare_cached(
                    "UPDATE exploration_sessions SET turn_count = turn_count + 1, updated_at = ? WHERE id = ?",
                )?
                .execute(params![to_ms(now), session.id.to_string()])?;
            conn.prepare_cached(
                    "INSERT INTO session_turns (id, session_id, seq, role, content, latency_ms, created_at)
                     VALUES (?, ?, ?, 'user', ?, NULL, ?)",
                )?
                .execute(params![
                    turn_id.to_string(),
                    session.id.to_string(),
                    user_seq,
                    content,
                    to_ms(now)
                ])?;
            entry.allow(conn)?;
            let history = conn
                    .prepare_cached(
                        "SELECT role, content FROM session_turns WHERE session_id = ? AND seq <= ? ORDER BY seq",
                    )?
                    .query_map(params![session.id.to_string(), user_seq], |r| {
                        let role: String = r.get(0)?;
                        let content: String = r.get(1)?;
                        Ok(if role == "user" {
                            ChatMessage::user(content)
                        } else {
                            ChatMessage::assistant(content)
                        })
                    })?
                    .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(Decided::Allowed(Reserved {
                campaign_id: session.campaign.id,
                target_id: session.target_id,
                index,
                max_turns: session.max_turns,
                history,
            }))
        };
        let Reserved {
            campaign_id,
            target_id,
            index,
            max_turns,
            history,
        } = self
            .decide_on_session(session_id, LedgerAction::Message, reserve)
            .await?;
        // The user's turn is stored: live views show it before the reply.
        self.notify(Event::SessionChanged {
            campaign_id,
            session_id,
        });
        let user_seq = i64::from(index) * 2;
        let reply = match self.channel_for(target_id).await {
            Ok(channel) => {
                let sent = channel
                    .send(&ChatRequest {
                        messages: history,
                        tools: Default::default(),
                    })
                    .await;
                self.note_contact(
                    campaign_id,
                    crate::provenance::HostRole::Target,
                    channel.host().as_deref(),
                    sent.as_ref().ok().and_then(|r| r.usage),
                );
                sent.map_err(|e| e.to_string())
            }
            Err(e) => Err(e.body.message),
        };
        match reply {
            Ok(reply) => {
                let row = crate::store::writer::ReplyRow {
                    id: self.ids.next_id().to_string(),
                    session_id: session_id.to_string(),
                    seq: user_seq + 1,
                    content: reply.content.clone(),
                    latency_ms: reply.latency_ms as i64,
                    at: to_ms(self.clock.now()),
                };
                // Group-committed with other sessions' replies.
                self.store
                    .writer
                    .enqueue(crate::store::writer::Write::Reply(row))
                    .committed()
                    .await?;
                self.notify(Event::SessionChanged {
                    campaign_id,
                    session_id,
                });
                Ok(MessageReply {
                    session_id,
                    reply: reply.content,
                    latency_ms: reply.latency_ms,
                    turn: index + 1,
                    turns_remaining: max_turns.saturating_sub(index + 1),
                    max_turns,
                    tool_calls: reply.tool_calls,
                })
            }
            Err(reason) => {
                let at = to_ms(self.clock.now());
                let failure = reason.clone();
                self.store.writer
                    .transact(move |conn| {
                        conn.prepare_cached(
                            "UPDATE exploration_sessions SET status = 'failed', end_reason = 'target_error',
                                failure_reason = ?1, ended_at = ?2, updated_at = ?2
                             WHERE id = ?3 AND status = 'running'",
                        )?
                        .execute(params![failure, at, session_id.to_string()])?;
                        crate::exploration::simulator_faults::check_and_store(
                            conn,
                            &session_id.to_string(),
                        )?;
                        Ok(())
                    })
                    .await?;
                self.audit(
                    "platform",
                    "session.fail",
                    Some(session_id),
                    "TARGET_UNAVAILABLE",
                )
                .await;
                self.notify(Event::SessionChanged {
                    campaign_id,
                    session_id,
                });
                Err(Error::new(
                    ErrorCode::TargetUnavailable,
                    format!(
                        "the target did not answer after its retries: {reason}; the session has failed"
                    ),
                    "Check the target (targets page, connection test); then start a new session.",
                ))
            }
        }
    }

    /// Closes a running session with its experience record and queues the
    /// judge review.
    #[tracing::instrument(skip(self, req))]
    pub async fn close_session(
        &self,
        session_id: Uuid,
        req: CloseSession,
    ) -> Result<ExplorationSession> {
        let (record, end_reason) = req.normalize()?;
        let json = serde_json::to_string(&record)?;
        let close = move |conn: &Connection, session: &SessionState, entry: Entry, now| {
            conn.prepare_cached(
                    "UPDATE exploration_sessions SET status = 'completed', end_reason = ?1, experience = ?2,
                        judge_status = 'pending', ended_at = ?3, updated_at = ?3
                     WHERE id = ?4",
                )?
                .execute(params![end_reason.as_str(), json, to_ms(now), session.id.to_string()])?;
            // A simulator error's record, or that of a session the check
            // finds a simulator fault in, says nothing about the target.
            let faults = crate::exploration::simulator_faults::check_and_store(
                conn,
                &session.id.to_string(),
            )?;
            if end_reason != EndReason::SimulatorError && faults.is_empty() {
                crate::exploration::findings::record_issues(
                    conn,
                    session.campaign.id,
                    session.id,
                    &record,
                )?;
            }
            entry.allow(conn)?;
            Ok(Decided::Allowed(session.campaign.id))
        };
        let campaign_id = self
            .decide_on_session(session_id, LedgerAction::Close, close)
            .await?;
        self.session_changed("session.close", campaign_id, session_id)
            .await;
        self.get_session(session_id).await
    }

    /// Ends a running session as `failed` (e.g. the virtual user's model
    /// broke down: `simulator_error`).
    #[tracing::instrument(skip(self))]
    pub async fn fail_session(
        &self,
        session_id: Uuid,
        reason: &str,
        end_reason: EndReason,
    ) -> Result<ExplorationSession> {
        let reason: String = reason.trim().chars().take(2000).collect();
        let session = self.get_session(session_id).await?;
        let now = to_ms(self.clock.now());
        let changed = sqlx::query(
            "UPDATE exploration_sessions SET status = 'failed', end_reason = ?, failure_reason = ?,
                ended_at = ?, updated_at = ?
             WHERE id = ? AND status = 'running'",
        )
        .bind(end_reason.as_str())
        .bind(&reason)
        .bind(now)
        .bind(now)
        .bind(session_id.to_string())
        .execute(&self.store.pool)
        .await?
        .rows_affected();
        if changed == 0 {
            return Err(session_not_running(
                session.id,
                session.status,
                session.end_reason,
            ));
        }
        let id = session_id.to_string();
        self.store
            .writer
            .transact(move |conn| {
                crate::exploration::simulator_faults::check_and_store(conn, &id).map(drop)
            })
            .await?;
        self.session_changed("session.fail", session.campaign_id, session_id)
            .await;
        self.get_session(session_id).await
    }

    /// A campaign's sessions, oldest first.
    pub async fn list_sessions(&self, campaign_id: Uuid) -> Result<Vec<ExplorationSession>> {
        self.get_campaign(campaign_id).await?;
        let rows = sqlx::query(
            "SELECT * FROM exploration_sessions WHERE campaign_id = ? ORDER BY started_at, id",
        )
        .bind(campaign_id.to_string())
        .fetch_all(&self.store.pool)
        .await?;
        rows.iter().map(session_from_row).collect()
    }

    pub async fn get_session(&self, id: Uuid) -> Result<ExplorationSession> {
        let mut conn = self.store.pool.acquire().await?;
        load_session(&mut conn, id).await
    }

    /// One session with its whole conversation.
    pub async fn session_messages(&self, id: Uuid) -> Result<SessionTranscript> {
        let session = self.get_session(id).await?;
        let mut transcripts = self.session_transcripts(&[session.id]).await?;
        Ok(transcripts.remove(0))
    }

    /// Sessions with their whole conversations, in the order of `ids`
    /// (each once), read in two queries however many there are; unknown
    /// ids are left out.
    pub async fn session_transcripts(&self, ids: &[Uuid]) -> Result<Vec<SessionTranscript>> {
        let list = serde_json::to_string(ids)?;
        let sessions = sqlx::query(
            "SELECT * FROM exploration_sessions WHERE id IN (SELECT value FROM json_each(?))",
        )
        .bind(&list)
        .fetch_all(&self.store.pool)
        .await?;
        let mut transcripts = sessions
            .iter()
            .map(|row| {
                let session = session_from_row(row)?;
                let transcript = SessionTranscript {
                    session,
                    messages: Vec::new(),
                };
                Ok((transcript.session.id, transcript))
            })
            .collect::<Result<std::collections::HashMap<Uuid, SessionTranscript>>>()?;
        let rows = sqlx::query(
            "SELECT session_id, seq, role, content, latency_ms, created_at FROM session_turns
             WHERE session_id IN (SELECT value FROM json_each(?)) ORDER BY session_id, seq",
        )
        .bind(&list)
        .fetch_all(&self.store.pool)
        .await?;
        for r in &rows {
            let session_id = parse_id(r.try_get::<&str, _>("session_id")?)?;
            let Some(transcript) = transcripts.get_mut(&session_id) else {
                continue;
            };
            let role: &str = r.try_get("role")?;
            transcript.messages.push(SessionTurn {
                seq: r.try_get::<i64, _>("seq")? as u32,
                role: if role == "user" {
                    TurnRole::User
                } else {
                    TurnRole::Target
                },
                content: r.try_get("content")?,
                latency_ms: r.try_get::<Option<i64>, _>("latency_ms")?.map(|l| l as u64),
                created_at: from_ms(r.try_get("created_at")?),
            });
        }
        Ok(ids.iter().filter_map(|id| transcripts.remove(id)).collect())
    }
}
