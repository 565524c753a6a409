// A real AgentSession for ops that call one of its methods (session.navigate): made by
// Pi's own createAgentSession, so every private field its constructor sets exists in
// whatever release is installed. It is built on a throwaway in-memory session (what
// session start appends goes there), in a temp HOME with PI_OFFLINE; the op then hands
// it the case's SessionManager, the scripted model and its stream function.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export async function hostSession(load, { settings, model, streamFn, sessionManager }) {
  const { createAgentSession } = await load("core/sdk.js");
  const sessions = await load("core/session-manager.js");
  const { SettingsManager } = await load("core/settings-manager.js");
  const { DefaultResourceLoader } = await load("core/resource-loader.js");
  const home = mkdtempSync(join(tmpdir(), "ctxspec-host-"));
  const saved = { HOME: process.env.HOME, PI_OFFLINE: process.env.PI_OFFLINE };
  process.env.HOME = home;
  process.env.PI_OFFLINE = "1";
  try {
    const agentDir = join(home, "agent");
    const settingsManager = SettingsManager.inMemory({ ...settings, retry: { enabled: false } });
    const resourceLoader = new DefaultResourceLoader({ cwd: home, agentDir, settingsManager,
      noExtensions: true, noSkills: true, noPromptTemplates: true, noThemes: true, noContextFiles: true });
    await resourceLoader.reload();
    const { session } = await createAgentSession({ cwd: home, agentDir, settingsManager, resourceLoader,
      sessionManager: sessions.SessionManager.inMemory(home), model, noTools: "builtin" });
    session.sessionManager = sessionManager;
    session.agent.streamFunction = streamFn;
    session.agent.state.model = model;
    return { session, close: () => rmSync(home, { recursive: true, force: true }) };
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}
