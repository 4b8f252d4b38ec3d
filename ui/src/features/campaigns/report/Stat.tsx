import { Paper, Text } from "@mantine/core";

/** One figure with its label. */
export function Stat({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <Paper withBorder p="sm">
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="xl" fw={700} data-testid={testId}>
        {value}
      </Text>
    </Paper>
  );
}
