import {
  AppShell,
  Button,
  Group,
  Modal,
  NavLink,
  PasswordInput,
  SegmentedControl,
  Stack,
  Text,
  Title,
} from "@mantine/core";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { api, apiKey, asApiError, type ApiError } from "./api";
import { ErrorAlert } from "./components/ErrorAlert";
import { CampaignList } from "./features/campaigns/CampaignList";
import { CampaignView } from "./features/campaigns/CampaignView";
import { SettingsPage } from "./features/settings/SettingsPage";
import { TargetsPage } from "./features/targets/TargetsPage";
import { setLanguage, type UiLanguage } from "./i18n";

type Page = { kind: "campaigns" } | { kind: "campaign"; id: string } | { kind: "targets" } | { kind: "settings" };

function KeyPrompt({ onDone }: { onDone: () => void }) {
  const { t } = useTranslation();
  const [key, setKey] = useState("");
  const [error, setError] = useState<ApiError | null>(null);
  const submit = async () => {
    apiKey.set(key.trim());
    try {
      await api.listTargets();
      onDone();
    } catch (e) {
      setError(asApiError(e));
    }
  };
  return (
    <Modal opened onClose={() => undefined} withCloseButton={false} title={t("key.title")} centered>
      <Stack>
        <Text size="sm">{t("key.intro")}</Text>
        <PasswordInput
          label={t("key.label")}
          value={key}
          onChange={(e) => setKey(e.currentTarget.value)}
          data-testid="api-key-input"
          onKeyDown={(e) => {
            if (e.key === "Enter") void submit();
          }}
        />
        <ErrorAlert error={error} />
        <Button onClick={() => void submit()} disabled={!key.trim()} data-testid="api-key-submit">
          {t("key.submit")}
        </Button>
      </Stack>
    </Modal>
  );
}

export function App() {
  const { t, i18n } = useTranslation();
  const [page, setPage] = useState<Page>({ kind: "campaigns" });
  const [needKey, setNeedKey] = useState(false);
  const [ready, setReady] = useState(!apiKey.needed());

  useEffect(() => {
    if (!apiKey.needed()) return;
    api
      .listTargets()
      .then(() => setReady(true))
      .catch((e: unknown) => {
        if (asApiError(e).code === "UNAUTHORIZED") setNeedKey(true);
        else setReady(true);
      });
  }, []);

  const lang: UiLanguage = i18n.language.startsWith("zh") ? "zh" : "en";

  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 200, breakpoint: 0 }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between">
          <Group gap="xs">
            <Title order={3} c="indigo.7">
              {t("app.title")}
            </Title>
            <Text size="sm" c="dimmed">
              {t("app.subtitle")}
            </Text>
          </Group>
          <SegmentedControl
            size="xs"
            value={lang}
            onChange={(v) => setLanguage(v === "zh" ? "zh" : "en")}
            data={[
              { value: "en", label: "English" },
              { value: "zh", label: "中文" },
            ]}
            data-testid="language-switch"
          />
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs">
        <NavLink
          label={t("nav.campaigns")}
          active={page.kind === "campaigns" || page.kind === "campaign"}
          onClick={() => setPage({ kind: "campaigns" })}
          data-testid="nav-campaigns"
        />
        <NavLink
          label={t("nav.targets")}
          active={page.kind === "targets"}
          onClick={() => setPage({ kind: "targets" })}
          data-testid="nav-targets"
        />
        <NavLink
          label={t("nav.settings")}
          active={page.kind === "settings"}
          onClick={() => setPage({ kind: "settings" })}
          data-testid="nav-settings"
        />
      </AppShell.Navbar>
      <AppShell.Main>
        {needKey && (
          <KeyPrompt
            onDone={() => {
              setNeedKey(false);
              setReady(true);
            }}
          />
        )}
        {ready && page.kind === "campaigns" && (
          <CampaignList onOpen={(id) => setPage({ kind: "campaign", id })} />
        )}
        {ready && page.kind === "campaign" && (
          <CampaignView
            key={page.id}
            id={page.id}
            onBack={() => setPage({ kind: "campaigns" })}
            onOpen={(id) => setPage({ kind: "campaign", id })}
          />
        )}
        {ready && page.kind === "targets" && <TargetsPage />}
        {ready && page.kind === "settings" && <SettingsPage />}
      </AppShell.Main>
    </AppShell>
  );
}
