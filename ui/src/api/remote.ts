// The desktop app on a team server: each call goes to the app, which sends
// it to the server with the key it keeps in the OS keychain (the key never
// reaches the page); the server's live events arrive as the app's own.

import { save } from "@tauri-apps/plugin-dialog";
import { commands, type ExportFormat, type ServerConnection, type Value } from "../bindings";
import type { Answer, Transport } from "./http";
import { TextBody } from "./operations";
import { EXTENSIONS, tauriConnector, unwrap } from "./tauri";

export class RemoteTransport implements Transport {
  readonly connector = tauriConnector;

  async send(method: string, path: string, body?: unknown): Promise<Answer> {
    const answer = await unwrap(
      body instanceof TextBody
        ? commands.remoteCall(method, path, null, body.text)
        : commands.remoteCall(method, path, body === undefined ? null : (body as Value), null),
    );
    return { status: answer.status, text: answer.body };
  }

  async save(path: string, format: ExportFormat, fileName: string): Promise<boolean> {
    const destination = await save({
      defaultPath: fileName,
      filters: [{ name: format.toUpperCase(), extensions: [EXTENSIONS[format]] }],
    });
    if (!destination) return false;
    await unwrap(commands.remoteSave(path, destination));
    return true;
  }
}

/** The desktop app's choice between its own database and a team server. */
export const teamServer = {
  /** The team server in use, or `null` on this machine's database. */
  current(): Promise<ServerConnection | null> {
    return unwrap(commands.connection());
  },
  /** Connects when the server knows the key; the window then reloads to use it. */
  connect(url: string, key: string): Promise<ServerConnection> {
    return unwrap(commands.connectServer(url, key));
  },
  /** Back to this machine's database. */
  disconnect(): Promise<null> {
    return unwrap(commands.disconnectServer());
  },
};
