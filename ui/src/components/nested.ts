import { createContext } from "react";

/**
 * Tells the drawer around a modal that the modal is open, so that Escape
 * and the focus trap go to the modal alone: Mantine's drawer and modal both
 * listen for Escape on the window, and without this one key closes both.
 * Outside such a drawer, telling it does nothing.
 */
export const NestedModal = createContext<(open: boolean) => void>(() => {});
