import {
  AppShell,
  Burger,
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
import { useDisclosure, useMediaQuery } from "@mantine/hooks";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { api, apiKey, asApiError, type ApiError } from "./api";
import { ErrorAlert } from "./components/ErrorAlert";
import { CampaignList } from "./features/campaigns/CampaignList";
import { CampaignView } from "./features/campaigns/CampaignView";
import { SettingsPage } from "./features/settings/SettingsPage";
import { TargetsPage } from "./features/targets/TargetsPage";
import { setLanguage, type UiLanguage } from "./i18n";
import { navigate, useRoute } from "./routing";

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
  const route = useRoute();
  const [needKey, setNeedKey] = useState(false);
  const [ready, setReady] = useState(!apiKey.needed());
  // Narrow windows (or a 200 % zoom) fold the navigation behind a menu button.
  const [navOpen, nav] = useDisclosure(false);
  // Folded away, the links are out of the keyboard's reach too.
  const folded = useMediaQuery("(max-width: 47.99em)") && !navOpen;
  useEffect(nav.close, [route, nav.close]);

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
    <AppShell header={{ height: 56 }} navbar={{ width: 200, breakpoint: "sm", collapsed: { mobile: !navOpen } }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="xs" wrap="nowrap">
            <Burger opened={navOpen} onClick={nav.toggle} hiddenFrom="sm" size="sm" aria-label={t("nav.menu")} aria-expanded={navOpen} data-testid="nav-menu" />
            <Title order={3} c="indigo.7">
              {t("app.title")}
            </Title>
            <Text size="sm" c="dimmed" visibleFrom="md">
              {t("app.subtitle")}
            </Text>
          </Group>
          <SegmentedControl
            size="xs"
            value={lang}
            onChange={(v) => setLanguage(v === "zh" ? "zh" : "en")}
            data={[
              { value: "en", label: t("lang.en") },
              { value: "zh", label: t("lang.zh") },
            ]}
            data-testid="language-switch"
          />
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" inert={folded}>
        <NavLink
          label={t("nav.campaigns")}
          href="#/campaigns"
          active={route.kind !== "targets" && route.kind !== "settings"}
          onClick={(e) => {
            e.preventDefault();
            navigate({ kind: "campaigns" });
          }}
          data-testid="nav-campaigns"
        />
        <NavLink
          label={t("nav.targets")}
          href="#/targets"
          active={route.kind === "targets"}
          onClick={(e) => {
            e.preventDefault();
            navigate({ kind: "targets" });
          }}
          data-testid="nav-targets"
        />
        <NavLink
          label={t("nav.settings")}
          href="#/settings"
          active={route.kind === "settings"}
          onClick={(e) => {
            e.preventDefault();
            navigate({ kind: "settings" });
          }}
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
        {ready && route.kind === "campaigns" && (
          <CampaignList onOpen={(id) => navigate({ kind: "campaign", id, query: {} })} />
        )}
        {ready &&
          (route.kind === "campaign" || route.kind === "report" || route.kind === "session" || route.kind === "run" || route.kind === "blind") && (
            <CampaignView key={route.id} id={route.id} route={route} />
          )}
        {ready && route.kind === "targets" && <TargetsPage />}
        {ready && route.kind === "settings" && <SettingsPage />}
      </AppShell.Main>
    </AppShell>
  );
}
