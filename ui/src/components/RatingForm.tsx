import { Button, Group, Rating, Stack, Text, Textarea, Title } from "@mantine/core";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { api, asApiError, type ApiError } from "../api";
import { ErrorAlert } from "./ErrorAlert";
import { useMayChange } from "./identity";
import { when } from "./format";

/** A reviewer's 1-5 rating of a run or session; the saved rating shows again on reopen. */
export function RatingForm({ kind, subjectId, testPrefix }: { kind: "run" | "session"; subjectId: string; testPrefix: string }) {
  const { t } = useTranslation();
  const [rating, setRating] = useState(0);
  const [comment, setComment] = useState("");
  const [savedAt, setSavedAt] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const mayChange = useMayChange();

  useEffect(() => {
    let cancelled = false;
    api
      .latestReview(subjectId)
      .then((r) => {
        if (cancelled || !r) return;
        setRating(r.rating);
        setComment(r.comment);
        setSavedAt(r.created_at);
      })
      .catch(() => undefined);
    return () => {
      cancelled = true;
    };
  }, [subjectId]);

  const save = async () => {
    try {
      const r = await api.addReview({ subject_kind: kind, subject_id: subjectId, rating, comment });
      setSavedAt(r.created_at);
      setError(null);
    } catch (e) {
      setError(asApiError(e));
    }
  };

  if (!mayChange) {
    // A viewer reads the latest rating, if any, and cannot rate.
    if (!savedAt) return null;
    return (
      <Stack gap="xs">
        <Title order={5}>{t("session.rating")}</Title>
        <Group align="center">
          <Rating value={rating} readOnly data-testid={`${testPrefix}-rating`} />
          {comment && <Text size="sm">{comment}</Text>}
        </Group>
        <Text size="sm" c="dimmed" data-testid={`${testPrefix}-rated`}>
          {t("ev.ratedAt", { rating, at: when(savedAt) })}
        </Text>
      </Stack>
    );
  }

  return (
    <Stack gap="xs">
      <Title order={5}>{t("session.rate")}</Title>
      <Group align="flex-start">
        <Rating value={rating} onChange={setRating} data-testid={`${testPrefix}-rating`} />
        <Textarea
          flex={1}
          autosize
          minRows={1}
          placeholder={t("session.comment")}
          aria-label={t("session.comment")}
          value={comment}
          onChange={(e) => setComment(e.currentTarget.value)}
          data-testid={`${testPrefix}-comment`}
        />
        <Button size="xs" disabled={rating === 0} onClick={() => void save()} data-testid={`${testPrefix}-rate-submit`}>
          {t("session.submitRating")}
        </Button>
      </Group>
      {savedAt && (
        <Text size="sm" c="green" data-testid={`${testPrefix}-rated`}>
          {t("ev.ratedAt", { rating, at: when(savedAt) })}
        </Text>
      )}
      <ErrorAlert error={error} onClose={() => setError(null)} />
    </Stack>
  );
}
