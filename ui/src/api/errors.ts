import type { ErrorBody, ErrorCode, ErrorText, Msg } from "../bindings";

/** Every failure the backend reports, in its `{code, message, suggestion}` shape. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly suggestion: string;
  readonly nextAllowedAt: string | null;
  /** The message and suggestion as catalogue messages, to render in the UI's language. */
  readonly text: ErrorText | null;

  constructor(body: ErrorBody) {
    super(body.message);
    this.name = "ApiError";
    this.code = body.code;
    this.suggestion = body.suggestion;
    this.nextAllowedAt = body.next_allowed_at ?? null;
    this.text = body.text ?? null;
  }
}

// Every code, checked by the compiler against the generated `ErrorCode`:
// a code added in Rust and missing here (or one removed) fails `tsc`.
const KNOWN: Record<ErrorCode, true> = {
  INVALID_INPUT: true,
  UNAUTHORIZED: true,
  FORBIDDEN: true,
  NOT_FOUND: true,
  PAYLOAD_TOO_LARGE: true,
  UNPROCESSABLE: true,
  CONFLICT: true,
  SESSION_BUDGET_EXHAUSTED: true,
  TURN_LIMIT_REACHED: true,
  INTERVAL_NOT_ELAPSED: true,
  AUTO_NOT_ALLOWED_ON_ACCELERATED_LINE: true,
  CAMPAIGN_NOT_RUNNING: true,
  SESSION_NOT_RUNNING: true,
  TARGET_UNAVAILABLE: true,
  MODEL_UNAVAILABLE: true,
  OFFLINE_REFUSED: true,
  DATABASE_UNAVAILABLE: true,
  INTERNAL: true,
};

function isErrorCode(v: unknown): v is ErrorCode {
  return typeof v === "string" && Object.hasOwn(KNOWN, v);
}

/** Narrows an unknown value (a JSON body, a rejected invoke) to an error body. */
export function toErrorBody(v: unknown): ErrorBody | null {
  if (typeof v !== "object" || v === null) return null;
  const code: unknown = Reflect.get(v, "code");
  const message: unknown = Reflect.get(v, "message");
  const suggestion: unknown = Reflect.get(v, "suggestion");
  const next: unknown = Reflect.get(v, "next_allowed_at");
  const text: unknown = Reflect.get(v, "text");
  if (typeof message !== "string") return null;
  return {
    code: isErrorCode(code) ? code : "INTERNAL",
    message,
    suggestion: typeof suggestion === "string" ? suggestion : "",
    next_allowed_at: typeof next === "string" ? next : null,
    text: toErrorText(text),
  };
}

function isMsg(v: unknown): v is Msg {
  return typeof v === "object" && v !== null && typeof Reflect.get(v, "key") === "string";
}

function toErrorText(v: unknown): ErrorText | null {
  if (typeof v !== "object" || v === null) return null;
  const message: unknown = Reflect.get(v, "message");
  const suggestion: unknown = Reflect.get(v, "suggestion");
  return isMsg(message) && isMsg(suggestion) ? { message, suggestion } : null;
}

/** Any thrown value as an ApiError (transport failures included). */
export function asApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  const body = toErrorBody(e);
  if (body) return new ApiError(body);
  const message = e instanceof Error ? e.message : String(e);
  return new ApiError({
    code: "INTERNAL",
    message,
    suggestion: "Check that the AgentEval server is running, then retry.",
    next_allowed_at: null,
  });
}
