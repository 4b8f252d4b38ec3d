// Exploration types of the HTTP API (DESIGN §5.1). Written by hand until
// the engine's exploration operations are part of the generated bindings.

import type { Goal, Persona } from "../bindings";

export type SessionStatus = "running" | "completed" | "failed" | "expired";
export type SessionTrigger = "auto" | "manual";

export type SeedRef = {
  persona_id: string;
  goal_id: string;
  variant?: { kind: string; note?: string | null } | null;
};

export type ExperienceRecord = {
  goal_achieved: boolean;
  blockers: string[];
  misled: string[];
  emotion: string;
  notes: string;
};

export type JudgeScore = { score?: number | null; evidence?: string | null };

export type JudgeReview = {
  attitude?: JudgeScore | null;
  professionalism?: JudgeScore | null;
  hallucination?: JudgeScore | null;
  summary?: string | null;
  verdict?: string | null;
  offline?: boolean | null;
  error?: string | null;
};

export type ExplorationSession = {
  id: string;
  campaign_id: string;
  status: SessionStatus;
  trigger: SessionTrigger;
  persona: Persona;
  goal: Goal;
  seed_ref?: SeedRef | null;
  end_reason?: string | null;
  turn_count: number;
  experience?: ExperienceRecord | null;
  judge_review?: JudgeReview | null;
  judge_status?: string | null;
  started_at: string;
  ended_at?: string | null;
};

export type SessionTurn = {
  seq?: number;
  role: "user" | "target";
  content: string;
  latency_ms?: number | null;
  created_at?: string;
};

export type CreateSession = {
  campaign_id: string;
  persona: Persona;
  goal: Goal;
  seed_ref?: SeedRef | null;
  trigger?: SessionTrigger;
};

export type MessageReply = { reply: string; latency_ms: number };

/** The optional parts of the report's exploration block the UI shows. */
export type IssueView = { text: string; kind?: string; count: number; session_ids?: string[] };
export type CoverageCell = {
  persona_id: string;
  goal_id: string;
  sessions: number;
  achieved?: number;
  findings?: number;
};

export type ExplorationView = {
  sessions_total: number;
  by_status?: Partial<Record<SessionStatus, number>>;
  goal_achievement_rate?: number | null;
  issues?: IssueView[];
  emotions?: Record<string, number>;
  coverage?: CoverageCell[];
  judge_findings?: { session_id: string; dimension?: string; score?: number; evidence?: string }[];
};
