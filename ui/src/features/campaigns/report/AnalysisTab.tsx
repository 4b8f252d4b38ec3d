import { Badge, Button, Group, List, Stack, Text } from "@mantine/core";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { api, asApiError, type ApiError, type CampaignReport, type Claim } from "../../../api";
import { ErrorAlert } from "../../../components/ErrorAlert";
import { useMayChange } from "../../../components/identity";
import { when } from "../../../components/format";
import { Link } from "../../../components/Link";
import { parseTurnId } from "./evidence";
import { useEvidenceNames, type Namer } from "./names";
import { useEngineText, useUiLanguage } from "../../../i18n/engine";
import { CodeSpans } from "../../../components/CodeSpans";

function Citations({ claim, campaignId, names }: { claim: Claim; campaignId: string; names: Namer }) {
  const { t } = useTranslation();
  const sessionIds = claim.session_ids ?? [];
  const turns = (claim.turn_ids ?? []).flatMap((raw) => {
    const p = parseTurnId(raw, sessionIds);
    return p ? [{ raw, ...p }] : [];
  });
  const links = [
    ...(claim.run_ids ?? []).map((id) => (
      <Link key={`r${id}`} to={{ kind: "run", id: campaignId, rid: id, turn: null }} size="xs" data-testid="citation-run">
        {names.run(id)}
      </Link>
    )),
    ...sessionIds.map((id) => (
      <Link key={`s${id}`} to={{ kind: "session", id: campaignId, sid: id, turn: null }} size="xs" data-testid="citation-session">
        {names.session(id)}
      </Link>
    )),
    ...turns.map((x) => (
      <Link key={`t${x.raw}`} to={{ kind: "session", id: campaignId, sid: x.sessionId, turn: x.turn }} size="xs" data-testid="citation-turn">
        {names.session(x.sessionId, x.turn)}
      </Link>
    )),
  ];
  if (links.length === 0) return null;
  return (
    <Group gap={6} mt={2} data-testid="claim-citations">
      <Text size="xs" c="dimmed">
        {t("ev.evidence")}:
      </Text>
      {links}
    </Group>
  );
}

/** The analysis: summary and claims, each claim citing the runs, sessions and turns it rests on as links. */
export function AnalysisTab({ report, onChanged }: { report: CampaignReport; onChanged: () => void }) {
  const { t } = useTranslation();
  const tx = useEngineText();
  const lang = useUiLanguage();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const mayChange = useMayChange();
  const analysis = report.analysis;
  const names = useEvidenceNames(report.evidence);
  const analyse = async () => {
    setBusy(true);
    try {
      await api.generateAnalysis(report.campaign.id, lang);
      setError(null);
      onChanged();
    } catch (e) {
      setError(asApiError(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Stack>
      {analysis ? (
        <Stack gap="xs" data-testid="report-analysis">
          <Group gap="xs">
            <Badge color={analysis.offline ? "gray" : "indigo"}>
              {analysis.offline ? t("report.offlineTemplate") : analysis.model}
            </Badge>
            <Text size="xs" c="dimmed">
              {when(analysis.created_at)}
            </Text>
          </Group>
          {analysis.fallback_reason && (
            <Text size="xs" c="orange">
              <CodeSpans text={tx(analysis.fallback_reason)} />
            </Text>
          )}
          <Text style={{ whiteSpace: "pre-wrap" }}><CodeSpans text={tx(analysis.summary)} /></Text>
          <List size="sm" spacing="xs">
            {analysis.claims.map((c, i) => (
              <List.Item key={i} data-testid="analysis-claim">
                <CodeSpans text={tx(c.text)} />
                <Citations claim={c} campaignId={report.campaign.id} names={names} />
              </List.Item>
            ))}
          </List>
        </Stack>
      ) : (
        <Text c="dimmed">{t("report.noAnalysis")}</Text>
      )}
      {mayChange && (
        <Button w="fit-content" variant="light" loading={busy} onClick={() => void analyse()} data-testid="generate-analysis">
          {analysis ? t("report.regenerate") : t("report.generate")}
        </Button>
      )}
      <ErrorAlert error={error} onClose={() => setError(null)} />
    </Stack>
  );
}
