import { useSyncExternalStore } from "react";
import { database, type DatabaseState } from "../api";

const subscribe = (onChange: () => void) => database.subscribe(onChange);
const current = () => database.current();

/** Whether the backend's database answers; the component renders again when that changes. */
export function useDatabaseState(): DatabaseState {
  return useSyncExternalStore(subscribe, current);
}
