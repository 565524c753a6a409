// One request's Gemini CLI: its home, its recorded trust, and the Config its CLI would make.
//
// Gemini CLI reads the user's files under GEMINI_CLI_HOME (else the OS home,
// utils/paths.js `homedir`), and the trust decisions from GEMINI_CLI_TRUSTED_FOLDERS_PATH
// (else <home>/.gemini/trustedFolders.json, config/storage.js `getTrustedFoldersPath`),
// loaded once per process (utils/trust.js `loadTrustedFolders`). Each request points both
// at its own files and drops the process's cached trust (`resetTrustedFoldersForTesting`,
// the one export that clears it), so every request starts as a fresh `gemini` process.
//
// `cliConfig` builds the Config the way the CLI's `loadCliConfig` does with no settings
// file (in @google/gemini-cli 0.61.0, bundle/gemini-*.js, packages/cli/src/config/config.ts):
// `folderTrust: settings.security?.folderTrust?.enabled ?? false`, and `trustedFolder:
// isWorkspaceTrusted(settings, cwd).isTrusted ?? false`, where `isWorkspaceTrusted` is
// `checkPathTrust({path: cwd, isFolderTrustEnabled: settings.security?.folderTrust?.enabled
// ?? true, isHeadless})` (packages/cli/src/config/trustedFolders.ts); `model` is the CLI's
// default alias `auto`, `targetDir` the working directory. Usage statistics and telemetry
// are off (the CLI's settings `privacy.usageStatisticsEnabled`, `telemetry.enabled`), so
// nothing is sent. `Config.initialize()` is not run (it starts tools, MCP servers and the
// model client): only `storage.initialize()`, its first step (config/config.js), which
// names the project's temp directory.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

let requests = 0;

// the home (GEMINI_CLI_HOME and HOME) of this request, a real directory
export function useHome(home) {
  mkdirSync(home, { recursive: true });
  process.env.GEMINI_CLI_HOME = home;
  process.env.HOME = home;
}

// the user's recorded decision for `cwd` ("trusted" | "untrusted" | null), written as the
// CLI's trust dialog stores it (a TRUST_FOLDER / DO_NOT_TRUST rule for the folder) into a
// file of this request; null records nothing: the agent reads its default file in the home
export function recordTrust(core, ownTmp, cwd, trust) {
  requests += 1;
  if (trust === "trusted" || trust === "untrusted") {
    const file = join(ownTmp, `trustedFolders-${requests}.json`);
    const level = trust === "trusted" ? core.TrustLevel.TRUST_FOLDER : core.TrustLevel.DO_NOT_TRUST;
    writeFileSync(file, JSON.stringify({ [cwd]: level }, null, 2));
    process.env.GEMINI_CLI_TRUSTED_FOLDERS_PATH = file;
  } else {
    delete process.env.GEMINI_CLI_TRUSTED_FOLDERS_PATH;
  }
  core.resetTrustedFoldersForTesting();
}

// the trust the CLI computes for its working directory (loadCliConfig, above)
export function workspaceTrusted(core, cwd) {
  return core.checkPathTrust({ path: cwd, isFolderTrustEnabled: true, isHeadless: true }).isTrusted ?? false;
}

// a Config as loadCliConfig makes it with no settings, storage ready; `extra` are the
// settings a request sets (truncateToolOutputThreshold, model)
export async function cliConfig(core, { cwd, trustedFolder, ...extra }) {
  const config = new core.Config({
    sessionId: "ctxspec-session",
    targetDir: cwd,
    cwd,
    debugMode: false,
    interactive: false,
    model: core.GEMINI_MODEL_ALIAS_AUTO,
    usageStatisticsEnabled: false,
    telemetry: { enabled: false },
    folderTrust: false,
    trustedFolder,
    ...extra,
  });
  await config.storage.initialize();
  return config;
}
