//! The session operations: create, message, close, fail, and the reads
//! used for drill-down.

use super::StartCampaigns;
use super::guardrails::*;
use super::*;
use crate::domain::campaign::EffectiveBudget;
use crate::domain::ids::{CampaignId, SessionId};
use crate::i18n::Text;
use crate::store::decisions::{StartAsked, TakenTurn, TurnAsked};
use std::sync::Arc;

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
            && v.note.chars().count() > MAX_VARIANT_NOTE_CHARS
        {
            return Err(Error::invalid_msg(
                crate::msg!("error-variant-note-long", max = MAX_VARIANT_NOTE_CHARS),
                crate::msg!("error-variant-note-long-suggestion"),
            ));
        }

        // Everything but the campaign's status is fixed at creation; the
        // status is read again inside the decision.
        let campaign = self.campaign_for_start(req.campaign_id).await?;
        let now = self.clock.now();
        let session = ExplorationSession::starting(
            SessionStart {
                id: SessionId(self.ids.next_id()),
                campaign_id: campaign.id,
                target_id: campaign.target_id,
                persona,
                goal,
                seed_ref: req.seed_ref,
                trigger,
                played_by,
                user_model,
            },
            now,
        );
        let session = match self.start_at_once(&campaign, &session).await? {
            Some(started) => started,
            None => {
                self.start_in_transaction(Campaign::clone(&campaign), session)
                    .await?
            }
        };
        self.session_changed("session.create", session.campaign_id, session.id)
            .await;
        Ok(session)
    }

    /// Campaign `id` as a session start reads it: once per process (see
    /// [`super::StartCampaigns`]); its status may be older than the
    /// decision's.
    async fn campaign_for_start(&self, id: CampaignId) -> Result<Arc<Campaign>> {
        let known = |c: &StartCampaigns| {
            c.0.lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(&id)
                .cloned()
        };
        if let Some(campaign) = known(&self.start_campaigns) {
            return Ok(campaign);
        }
        let campaign = Arc::new(self.get_campaign(id).await?);
        let mut kept = self
            .start_campaigns
            .0
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if kept.len() >= StartCampaigns::MAX {
            kept.clear();
        }
        kept.insert(id, campaign.clone());
        Ok(campaign)
    }

    /// Takes a session's start in one statement where the store can (see
    /// `Store::start_session_at_once`): the started session, the refusal
    /// (recorded), or `None` when the decision is to be taken in a
    /// transaction (always on SQLite).
    async fn start_at_once(
        &self,
        campaign: &Campaign,
        session: &ExplorationSession,
    ) -> Result<Option<ExplorationSession>> {
        let (trigger, seed_ref) = (session.trigger, session.seed_ref.as_ref());
        if seed_decision(campaign, trigger, seed_ref).is_err() {
            return Ok(None);
        }
        let asked = StartAsked {
            session: session.clone(),
            entry_id: self.ids.next_id(),
            idle_before: session.started_at - super::lease::SESSION_LEASE,
            max_sessions: campaign.effective_budget.max_sessions,
            min_interval: min_interval(campaign),
            refusals: [
                ErrorCode::CampaignNotRunning,
                ErrorCode::SessionBudgetExhausted,
                ErrorCode::IntervalNotElapsed,
            ],
        };
        let Some(decided) = self.store.start_session_at_once(asked).await? else {
            return Ok(None);
        };
        if decided.started {
            return Ok(Some(session.clone().started_at(decided.at)));
        }
        // Not decided: sessions left idle give their slots back first.
        let (Some(code), Some(status)) = (decided.refused, decided.campaign_status) else {
            return Ok(None);
        };
        let mut window = CampaignWindow::of(campaign);
        window.status = status;
        let decision = create_decision(
            campaign,
            &window,
            trigger,
            seed_ref,
            decided.used,
            decided.last,
            decided.at,
        );
        // The refusal recorded, said as the guardrail says it.
        Err(match decision {
            Err(refusal) if refusal.code() == code => refusal,
            other => Error::internal(anyhow::anyhow!(
                "the database refused a session start with {code:?}, the guardrails decide {:?}",
                other.map_err(|e| e.code())
            )),
        })
    }

    /// Takes a session's start in one transaction, its campaign locked.
    async fn start_in_transaction(
        &self,
        campaign: Campaign,
        session: ExplorationSession,
    ) -> Result<ExplorationSession> {
        let campaign_id = campaign.id;
        let create = move |tx: &Tx<'_>, entry_id: Uuid, now: DateTime<Utc>, status| {
            let entry = Entry {
                id: entry_id,
                campaign_id: campaign.id,
                session_id: None,
                action: LedgerAction::Create,
                at: to_ms(now),
            };
            let mut window = CampaignWindow::of(&campaign);
            window.status = status;
            let lease_start = now - super::lease::SESSION_LEASE;
            let (mut used, mut last, idle) = tx.session_counts(campaign.id, lease_start)?;
            if idle > 0 && window.running(now) {
                // A session left open past its lease gives its slot back
                // first (once the window ends, the sessions expire instead).
                super::lease::abandon_idle(tx, Some(campaign.id), now)?;
                (used, last, _) = tx.session_counts(campaign.id, lease_start)?;
            }
            let decision = create_decision(
                &campaign,
                &window,
                session.trigger,
                session.seed_ref.as_ref(),
                used,
                last,
                now,
            );
            if let Err(refusal) = decision {
                return entry.refuse(tx, refusal);
            }
            let session = session.started_at(now);
            tx.insert_session(&session)?;
            Entry {
                session_id: Some(session.id),
                ..entry
            }
            .allow(tx)?;
            Ok(Decided::Allowed(session))
        };
        self.decide(campaign_id, create).await
    }

    /// Sends the virtual user's message to the target and returns the reply.
    #[tracing::instrument(skip(self, req))]
    pub async fn send_message(
        &self,
        session_id: SessionId,
        req: SendMessage,
    ) -> Result<MessageReply> {
        let content = req.content.trim().to_string();
        if content.is_empty() {
            return Err(Error::invalid_msg(
                crate::msg!("error-message-empty"),
                crate::msg!("error-message-empty-suggestion"),
            ));
        }
        if content.len() > MAX_MESSAGE_BYTES {
            return Err(Error::invalid_msg(
                crate::msg!("error-message-long", max = MAX_MESSAGE_BYTES / 1024),
                crate::msg!("error-message-long-suggestion"),
            ));
        }

        // Reserve the turn: check + increment + user turn + ledger row, and
        // read the conversation so far, in one decision: at once where the
        // store can, otherwise (or to refuse) in a transaction.
        let turn_id = self.ids.next_id();
        let asked = TurnAsked {
            session_id,
            entry_id: self.ids.next_id(),
            turn_id,
            content: content.clone(),
            now: self.clock.now(),
            default_max_turns: EffectiveBudget::DEFAULT.max_turns,
        };
        let reserve = move |tx: &Tx<'_>, session: &SessionState, entry: Entry, _| {
            if session.turn_count >= session.max_turns {
                let refusal = Error::msg(
                    ErrorCode::TurnLimitReached,
                    crate::msg!(
                        "guard-turn-limit",
                        id = session.id.to_string(),
                        max = session.max_turns
                    ),
                    crate::msg!("guard-turn-limit-suggestion"),
                );
                return entry.refuse(tx, refusal);
            }
            let index = session.turn_count;
            let history = tx.take_turn(&entry, turn_id, i64::from(index) * 2, &content)?;
            Ok(Decided::Allowed(TakenTurn {
                campaign_id: session.campaign.id,
                target_id: session.target_id,
                index,
                max_turns: session.max_turns,
                history,
            }))
        };
        let taken = match self.store.take_turn_at_once(asked).await? {
            Some(taken) => taken,
            None => {
                self.decide_on_session(session_id, LedgerAction::Message, reserve)
                    .await?
            }
        };
        let TakenTurn {
            campaign_id,
            target_id,
            index,
            max_turns,
            history,
        } = taken;
        // The user's turn is stored: live views show it before the reply.
        self.notify(Event::SessionChanged {
            campaign_id,
            session_id,
        });
        let user_seq = i64::from(index) * 2;
        let reply = self
            .session_exchange(campaign_id, session_id, target_id, history)
            .await?;
        match reply {
            Ok((reply, steps)) => {
                let row = crate::store::writer::ReplyRow {
                    id: self.ids.next_id().to_string(),
                    session_id: session_id.to_string(),
                    seq: user_seq + 1,
                    content: reply.content.clone(),
                    latency_ms: reply.latency_ms as i64,
                    at: to_ms(self.clock.now()),
                    steps: if steps.is_empty() {
                        None
                    } else {
                        Some(serde_json::to_string(&steps)?)
                    },
                };
                // Group-committed with other sessions' replies.
                self.store
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
                    steps,
                })
            }
            Err(reason) => {
                self.end_session_tools(session_id);
                let at = to_ms(self.clock.now());
                let failure = Text::Msg(reason.clone());
                self.store
                    .transact(move |tx| {
                        tx.fail_session_on_target_error(session_id, &failure, at)?;
                        crate::exploration::simulator_faults::check_and_store(tx, session_id)?;
                        Ok(())
                    })
                    .await?;
                self.audit_operation(
                    "session.fail",
                    Some(session_id.into()),
                    "TARGET_UNAVAILABLE",
                )
                .await;
                self.notify(Event::SessionChanged {
                    campaign_id,
                    session_id,
                });
                Err(Error::msg(
                    ErrorCode::TargetUnavailable,
                    crate::msg!("target-session-failed", detail = reason),
                    crate::msg!("target-session-failed-suggestion"),
                ))
            }
        }
    }

    /// Closes a running session with its experience record and queues the
    /// judge review.
    #[tracing::instrument(skip(self, req))]
    pub async fn close_session(
        &self,
        session_id: SessionId,
        req: CloseSession,
    ) -> Result<ExplorationSession> {
        let (record, end_reason) = req.normalize()?;
        if end_reason == EndReason::SimulatorError
            && self.get_session(session_id).await?.played_by == PlayedBy::Person
        {
            return Err(Error::invalid_msg(
                crate::msg!("error-person-simulator-error"),
                crate::msg!("error-person-simulator-error-suggestion"),
            ));
        }
        let json = serde_json::to_string(&record)?;
        let close = move |tx: &Tx<'_>, session: &SessionState, entry: Entry, now| {
            tx.complete_session(session.id.into(), end_reason, &json, now)?;
            // A simulator error's record, or that of a session the check
            // finds a simulator fault in, says nothing about the target.
            let faults = crate::exploration::simulator_faults::check_and_store(tx, session.id)?;
            if end_reason != EndReason::SimulatorError && faults.is_empty() {
                crate::exploration::issues::record_issues(
                    tx,
                    session.campaign.id,
                    session.id,
                    &record,
                )?;
            }
            entry.allow(tx)?;
            Ok(Decided::Allowed(session.campaign.id))
        };
        let campaign_id = self
            .decide_on_session(session_id, LedgerAction::Close, close)
            .await?;
        self.end_session_tools(session_id);
        self.session_changed("session.close", campaign_id, session_id)
            .await;
        self.get_session(session_id).await
    }

    /// Ends a running session as `failed` (e.g. the virtual user's model
    /// broke down: `simulator_error`) with why: a message of the
    /// catalogue, or the words a client sent (the first 2000 characters).
    #[tracing::instrument(skip(self, reason))]
    pub async fn fail_session(
        &self,
        session_id: SessionId,
        reason: impl Into<Text>,
        end_reason: EndReason,
    ) -> Result<ExplorationSession> {
        let reason = match reason.into() {
            Text::Plain(s) => Text::Plain(s.trim().chars().take(2000).collect()),
            said => said,
        };
        let session = self.get_session(session_id).await?;
        let failed = self
            .store
            .fail_running_session(session_id.into(), end_reason, &reason, self.clock.now())
            .await?;
        if !failed {
            return Err(session_not_running(
                session.id.into(),
                session.status,
                session.end_reason,
            ));
        }
        self.store
            .transact(move |tx| {
                crate::exploration::simulator_faults::check_and_store(tx, session_id).map(drop)
            })
            .await?;
        self.end_session_tools(session_id);
        self.session_changed("session.fail", session.campaign_id, session_id)
            .await;
        self.get_session(session_id).await
    }

    /// A campaign's sessions, oldest first.
    pub async fn list_sessions(&self, campaign_id: CampaignId) -> Result<Vec<ExplorationSession>> {
        self.get_campaign(campaign_id).await?;
        self.store.campaign_sessions(campaign_id).await
    }

    pub async fn get_session(&self, id: SessionId) -> Result<ExplorationSession> {
        self.store
            .session(id)
            .await?
            .ok_or_else(|| Error::not_found("session", id))
    }

    /// One session with its whole conversation.
    pub async fn session_messages(&self, id: SessionId) -> Result<SessionTranscript> {
        let session = self.get_session(id).await?;
        let mut transcripts = self.session_transcripts(&[session.id]).await?;
        Ok(transcripts.remove(0))
    }

    /// Sessions with their whole conversations, in the order of `ids`
    /// (each once), read in two queries however many there are; unknown
    /// ids are left out.
    pub async fn session_transcripts(&self, ids: &[SessionId]) -> Result<Vec<SessionTranscript>> {
        let mut transcripts: std::collections::HashMap<SessionId, SessionTranscript> = self
            .store
            .sessions_among(ids)
            .await?
            .into_iter()
            .map(|session| {
                let transcript = SessionTranscript {
                    session,
                    messages: Vec::new(),
                };
                (transcript.session.id, transcript)
            })
            .collect();
        for (session_id, turn) in self.store.turns_of_sessions(ids).await? {
            if let Some(transcript) = transcripts.get_mut(&session_id) {
                transcript.messages.push(turn);
            }
        }
        Ok(ids.iter().filter_map(|id| transcripts.remove(id)).collect())
    }
}
