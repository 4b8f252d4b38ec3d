import { Paper, Text } from "@mantine/core";

/** One figure with its label. */
export function Stat({ label, value, hint, testId }: { label: string; value: string; hint?: string; testId?: string }) {
  return (
    <Paper withBorder p="sm">
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="xl" fw={700} data-testid={testId}>
        {value}
      </Text>
      {hint && (
        <Text size="xs" c="dimmed" data-testid={testId && `${testId}-hint`}>
          {hint}
        </Text>
      )}
    </Paper>
  );
}
