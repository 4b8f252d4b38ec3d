import { Badge, Button, Group, Text, TextInput } from "@mantine/core";
import { useTranslation } from "react-i18next";
import { num } from "../../components/format";

/** Who labels, and the button that hands the label in. */
export function ReviewerAndSubmit(props: { reviewer: string; onReviewer: (name: string) => void; disabled: boolean; onSubmit: () => void }) {
  const { t } = useTranslation();
  return (
    <Group align="flex-end">
      <TextInput label={t("blind.reviewer")} value={props.reviewer} onChange={(e) => props.onReviewer(e.currentTarget.value)} data-testid="blind-reviewer" />
      <Button disabled={props.disabled} onClick={props.onSubmit} data-testid="blind-submit">
        {t("blind.submit")}
      </Button>
    </Group>
  );
}

/** The judge's score, and whether the person's (revealed beside it) is the same. */
export function JudgeScore(props: { judge: number | null | undefined; mine: number | null | undefined; testId: string }) {
  const { t } = useTranslation();
  const same = props.mine === props.judge;
  return (
    <Group gap={6} wrap="nowrap">
      <Text size="sm" data-testid={props.testId}>
        {num(props.judge)}
      </Text>
      <Badge size="sm" variant="light" color={same ? "green" : "orange"}>
        {same ? t("blind.same") : t("blind.differs")}
      </Badge>
    </Group>
  );
}
