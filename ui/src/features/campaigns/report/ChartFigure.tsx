import { Button, Stack, Table, Text } from "@mantine/core";
import { useId, useState, type ReactNode } from "react";
import { useTranslation } from "react-i18next";

/** The figures a chart draws, as a table: its column headings and its rows. */
export type ChartData = { columns: string[]; rows: (string | number)[][] };

/**
 * A chart with its text alternatives: a one-sentence summary that screen
 * readers announce in place of the drawing, and the table it draws, one
 * click (or key press) away for anyone who wants the exact figures.
 */
export function ChartFigure({
  title,
  summary,
  data,
  testId,
  children,
}: {
  title: string;
  summary: string;
  data: ChartData;
  testId: string;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  const [showTable, setShowTable] = useState(false);
  const tableId = useId();
  return (
    <Stack gap="xs" component="figure" m={0} data-testid={testId}>
      <Text fw={500} component="figcaption">
        {title}
      </Text>
      <div role="img" aria-label={summary} data-testid="chart-summary">
        {children}
      </div>
      <Button
        variant="subtle"
        size="xs"
        w="fit-content"
        aria-expanded={showTable}
        aria-controls={showTable ? tableId : undefined}
        onClick={() => setShowTable((v) => !v)}
        data-testid="chart-table-toggle"
      >
        {showTable ? t("report.hideTable") : t("report.showTable")}
      </Button>
      {showTable && (
        <Table id={tableId} withTableBorder striped data-testid="chart-table">
          <Table.Thead>
            <Table.Tr>
              {data.columns.map((c) => (
                <Table.Th key={c}>{c}</Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {data.rows.map((row, i) => (
              <Table.Tr key={i}>
                {row.map((cell, j) => (
                  <Table.Td key={j}>{cell}</Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}
