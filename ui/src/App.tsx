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
import { useCallback, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { api, apiKey, asApiError, type ApiError, type Identity } from "./api";
import { CodeSpans } from "./components/CodeSpans";
import { DatabaseBanner } from "./components/DatabaseBanner";
import { ErrorAlert } from "./components/ErrorAlert";
import { IdentityContext, WhoBadge } from "./components/identity";
import { useDatabaseState } from "./components/useDatabase";
import { CampaignList } from "./features/campaigns/CampaignList";
import { CampaignView } from "./features/campaigns/CampaignView";
import { ProductionPage } from "./features/production/ProductionPage";
import { SettingsPage } from "./features/settings/SettingsPage";
import { TargetsPage } from "./features/targets/TargetsPage";
import { setLanguage, type UiLanguage } from "./i18n";
import { navigate, useRoute } from "./routing";

/** The language switch: in the header, and in the key dialog, which covers
 * the header until a key is given (a first-time user picks 中文 first). */
function LanguageSwitch({ testId }: { testId: string }) {
  const { t, i18n } = useTranslation();
  const lang: UiLanguage = i18n.language.startsWith("zh") ? "zh" : "en";
  return (
    <SegmentedControl
      size="xs"
      value={lang}
      onChange={(v) => setLanguage(v === "zh" ? "zh" : "en")}
      data={[
        { value: "en", label: t("lang.en") },
        { value: "zh", label: t("lang.zh") },
      ]}
      data-testid={testId}
    />
  );
}

function KeyPrompt({ onDone }: { onDone: (who: Identity) => void }) {
  const { t } = useTranslation();
  const [key, setKey] = useState("");
  const [error, setError] = useState<ApiError | null>(null);
  const submit = async () => {
    apiKey.set(key.trim());
    try {
      onDone(await api.whoami());
    } catch (e) {
      setError(asApiError(e));
    }
  };
  return (
    <Modal opened onClose={() => undefined} withCloseButton={false} title={t("key.title")} centered>
      <Stack>
        <Group justify="flex-end">
          <LanguageSwitch testId="key-language-switch" />
        </Group>
        <Text size="sm">
          <CodeSpans text={t("key.intro")} />
        </Text>
        <PasswordInput
          label={t("key.label")}
          value={key}
          onChange={(e) => setKey(e.currentTarget.value)}
          data-testid="api-key-input"
          onKeyDown={(e) => {
            if (e.key === "Enter") void submit();
          }}
        />
        {/* A refused key is said for a person, not as the API's header advice. */}
        {error?.code === "UNAUTHORIZED" ? (
          <Text size="sm" c="red" role="alert" data-testid="api-key-refused">
            {t("key.refused")}
          </Text>
        ) : (
          <ErrorAlert error={error} />
        )}
        <Button onClick={() => void submit()} disabled={!key.trim()} data-testid="api-key-submit">
          {t("key.submit")}
        </Button>
      </Stack>
    </Modal>
  );
}

export function App() {
  const { t } = useTranslation();
  const route = useRoute();
  const [needKey, setNeedKey] = useState(false);
  const [ready, setReady] = useState(false);
  const [identity, setIdentity] = useState<Identity | null>(null);
  // Why the backend could not say who the user is (a team server down).
  const [startError, setStartError] = useState<ApiError | null>(null);
  // Narrow windows (or a 200 % zoom) fold the navigation behind a menu button.
  const [navOpen, nav] = useDisclosure(false);
  // Folded away, the links are out of the keyboard's reach too.
  const folded = useMediaQuery("(max-width: 47.99em)") && !navOpen;
  useEffect(nav.close, [route, nav.close]);

  const start = useCallback(() => {
    api
      .whoami()
      .then((who) => {
        setIdentity(who);
        setStartError(null);
        setReady(true);
      })
      .catch((e: unknown) => {
        const error = asApiError(e);
        if (error.code === "UNAUTHORIZED" && apiKey.needed()) {
          setNeedKey(true);
          return;
        }
        setStartError(error);
        setReady(true);
      });
  }, []);
  useEffect(start, [start]);
  // Who the user is could not be told while the database was down: asked again once it is back.
  const databaseBack = useDatabaseState() === "up";
  const waitingForDatabase = startError?.code === "DATABASE_UNAVAILABLE";
  useEffect(() => {
    if (waitingForDatabase && databaseBack) start();
  }, [waitingForDatabase, databaseBack, start]);

  return (
    <IdentityContext.Provider value={identity}>
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
            <Group gap="sm" wrap="nowrap">
              <WhoBadge />
              <LanguageSwitch testId="language-switch" />
            </Group>
          </Group>
        </AppShell.Header>
        <AppShell.Navbar p="xs" inert={folded}>
          <NavLink
            label={t("nav.campaigns")}
            href="#/campaigns"
            active={route.kind !== "targets" && route.kind !== "settings" && route.kind !== "production"}
            onClick={(e) => {
              e.preventDefault();
              navigate({ kind: "campaigns" });
            }}
            data-testid="nav-campaigns"
          />
          <NavLink
            label={t("nav.production")}
            href="#/production"
            active={route.kind === "production"}
            onClick={(e) => {
              e.preventDefault();
              navigate({ kind: "production", query: {}, conversation: null });
            }}
            data-testid="nav-production"
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
          <DatabaseBanner />
          {needKey && (
            <KeyPrompt
              onDone={(who) => {
                setIdentity(who);
                setNeedKey(false);
                setReady(true);
              }}
            />
          )}
          <ErrorAlert error={startError} onClose={() => setStartError(null)} />
          {ready && route.kind === "campaigns" && (
            <CampaignList onOpen={(id) => navigate({ kind: "campaign", id, query: {} })} />
          )}
          {ready &&
            (route.kind === "campaign" || route.kind === "report" || route.kind === "session" || route.kind === "run" || route.kind === "blind") && (
              <CampaignView key={route.id} id={route.id} route={route} />
            )}
          {ready && route.kind === "production" && <ProductionPage query={route.query} conversation={route.conversation} />}
          {ready && route.kind === "targets" && <TargetsPage />}
          {ready && route.kind === "settings" && <SettingsPage />}
        </AppShell.Main>
      </AppShell>
    </IdentityContext.Provider>
  );
}
