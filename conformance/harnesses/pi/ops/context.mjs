// context.discover, trust.resolve, skills.load, skills.format, prompt.build: Pi's
// core/resource-loader.js, trust-manager.js, project-trust.js, skills.js, system-prompt.js.
//
// File-system ops lay the case's tree out in a fresh temp root R (HOME and agentDir
// inside it, PI_OFFLINE=1), call Pi on R + path, and strip R from the result. The
// package's own documentation paths are shown as /pi/... (they differ per machine).
import { existsSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { portable } from "../../kit/engine.mjs";
import { mapObjectKeys } from "../../kit/jsontext.mjs";
import { confineSettings, materialize, pathArgument, realPath, virtualize, removeTree } from "../../kit/tree.mjs";

// what each op needs of Pi (the adapter leaves an op out where a release lacks a module)
export const needs = {
  "context.discover": ["core/resource-loader.js"],
  "trust.resolve": ["core/trust-manager.js", "core/project-trust.js"],
  "skills.load": ["core/skills.js"],
  "skills.format": ["core/skills.js"],
  "prompt.build": ["core/system-prompt.js"],
  "resources.load": ["core/resource-loader.js", "core/settings-manager.js", "utils/paths.js", "core/extensions/loader.js"],
};

// Pi's message for a trust store it cannot read, as {kind, path, message?}: `unreadable` (a
// file-system error: Pi's prefix, then Node's error as its kind, `<EISDIR>`), `notJson`
// (no message: after Pi's prefix it is V8's JSON.parse wording, the engine's, not Pi's),
// `invalid` (JSON of the wrong shape, Pi's message)
function trustStoreError(message, path) {
  if (message.startsWith("Invalid trust store")) return { kind: "invalid", path, message };
  const cause = message.slice(`Failed to read trust store ${path}: `.length);
  if (/^E[A-Z]+: /.test(cause)) return { kind: "unreadable", path, message: portable(message) };
  return { kind: "notJson", path };
}

// a trust store file's decisions when Pi can read it as an object, else null
function storeText(path) {
  const text = readableText(path);
  if (text === null) return null;
  try {
    const parsed = JSON.parse(text.replace(/^\uFEFF/, ""));
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

// the text of a file, or null when there is none or it cannot be read (a directory)
function readableText(path) {
  if (!existsSync(path)) return null;
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

const SKILL_FIELDS = ["name", "description", "filePath", "baseDir", "disableModelInvocation"];
// the parts of the loader's answer a resources.load request may ask for (protocol 1.2)
const INCLUDE_PARTS = ["themes", "extensions", "promptContent"];

export default async function contextOps(context) {
  const { load, packageDir } = context;
  const invalid = (message) => new context.InvalidInput(message);
  const loader = await load("core/resource-loader.js");
  const trustManager = await load("core/trust-manager.js");
  const projectTrust = await load("core/project-trust.js");
  const skills = await load("core/skills.js");
  const systemPrompt = await load("core/system-prompt.js");
  const settings = await load("core/settings-manager.js");
  const pathUtils = await load("utils/paths.js");
  const extensionsLoader = await load("core/extensions/loader.js");

  // run `body(real, rootKey, paths)` with the tree laid out; `real(virtual)` maps a case path
  // to R + path, `paths(list, field)` an explicit resource path list (pathArgument)
  async function inTree(args, body) {
    const root = materialize(args.tree ?? {});
    const real = (virtual) => realPath(root, virtual);
    const paths = (list, field) =>
      (list ?? []).map((raw) => pathArgument(root, raw, { cwd: args.cwd, home: args.home, field }));
    const saved = { HOME: process.env.HOME, PI_OFFLINE: process.env.PI_OFFLINE };
    process.env.PI_OFFLINE = "1";
    if (args.home) process.env.HOME = real(args.home);
    // a trust store's key as Pi keeps it: a virtual absolute path is the same path under
    // the root, character for character (`/ws//repo` stays unnormalised, so it matches no
    // directory, as in a real store); any other key (`ws/repo`, `~/x`, "") is written as is
    const storeKey = (key) => (key === "/" ? root : key.startsWith("/") ? root + key : key);
    const storeFile = args.agentDir ? real(args.agentDir) + "/trust.json" : undefined;
    try {
      if (args.trustStore && storeFile) {
        const data = Object.fromEntries(Object.entries(args.trustStore).map(([k, v]) => [storeKey(k), v]));
        mkdirSync(dirname(storeFile), { recursive: true });
        writeFileSync(storeFile, JSON.stringify(data, null, 2) + "\n");
      } else if (storeFile && !args.trustStore && storeText(storeFile) !== null) {
        // a store written in the tree: its keys are paths of the tree too. Only the key
        // tokens that map change; every other byte (BOM, spacing, order, duplicates, numbers)
        // reaches Pi as the case wrote it, and a store with no key to map is not written
        mapObjectKeys(storeFile, storeKey);
      }
      return virtualize(await body(real, (text) => text.split(JSON.stringify(root)).join('"/"'), paths), root);
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
      removeTree(root);
    }
  }

  const pickSkill = (skill) => Object.fromEntries(SKILL_FIELDS.map((key) => [key, skill[key]]));
  const asSkill = (s) => ({
    name: s.name,
    description: s.description,
    filePath: s.filePath,
    baseDir: s.baseDir ?? dirname(s.filePath),
    disableModelInvocation: s.disableModelInvocation ?? false,
    sourceInfo: { path: s.filePath, source: "local", scope: "temporary", origin: "top-level" },
  });
  const shownDocs = (text) => text.split(packageDir).join("/pi");

  return {
    "context.discover": (a) =>
      inTree(a, (real) => ({
        agentsFiles: loader.loadProjectContextFiles({ cwd: real(a.cwd), agentDir: real(a.agentDir) }),
      })),

    "trust.resolve": (a) =>
      inTree(a, async (real, rootKey) => {
        const cwd = real(a.cwd);
        const trustStore = new trustManager.ProjectTrustStore(real(a.agentDir));
        const storePath = real(a.agentDir) + "/trust.json";
        // trustPrompt: a UI whose trust prompt the user answers with `pick` (an option's label
        // as shown, virtual paths; null dismisses the prompt); the prompt Pi showed is kept
        let prompt = null;
        const ui = {
          select: async (title, options) => {
            // the tree's root stands for `/`: a parent option naming it cannot be shown
            const root = real("/");
            const outside = (label) => /^Trust parent folder \((.*)\)$/.exec(label)?.[1];
            if (options.some((label) => outside(label) !== undefined && !outside(label).startsWith(root + "/"))) {
              throw invalid("trustPrompt: the prompt would offer the tree root's parent; use a cwd two levels deep");
            }
            prompt = { title, options };
            const pick = a.trustPrompt?.pick ?? undefined;
            return options.find((label) => virtualize(label, real("/")) === pick) ?? pick;
          },
        };
        const withUI = a.trustPrompt !== undefined;
        let trusted;
        try {
          trusted = await projectTrust.resolveProjectTrusted({
            cwd,
            trustStore,
            trustOverride: a.trustOverride ?? undefined,
            defaultProjectTrust: a.defaultProjectTrust ?? undefined,
            projectTrustContext: withUI
              ? { cwd, mode: "interactive", hasUI: true, ui }
              : { cwd, mode: "print", hasUI: false, ui: {} },
          });
        } catch (error) {
          const message = String(error?.message);
          if (message.startsWith("Invalid trust store")) return { thrown: message };
          if (message.startsWith("Failed to read trust store")) throw new context.InvalidInput(portable(message), "trustStore");
          throw error;
        }
        let stored = null;
        let storeError;
        try {
          stored = trustStore.getEntry(cwd);
          // a decision stored for the root itself names `/` (stripping the root leaves "")
          if (stored?.path === real("/")) stored = { ...stored, path: "/" };
        } catch (error) {
          // a broken store that the decision did not need to read: say how it is broken
          storeError = trustStoreError(String(error?.message), storePath);
        }
        const out = { trusted, requiresTrust: trustManager.hasTrustRequiringProjectResources(cwd), stored };
        if (storeError) out.storeError = storeError;
        if (withUI) {
          out.prompt = prompt;
          // the root's own key (`/`) would read "" once the root is stripped
          const after = readableText(storePath);
          out.storeAfter = after === null ? null : rootKey(after);
        }
        return out;
      }),

    "skills.load": (a) =>
      inTree(a, (real, _, paths) => {
        const result = skills.loadSkills({
          cwd: real(a.cwd),
          agentDir: real(a.agentDir),
          skillPaths: paths(a.skillPaths, "skillPaths"),
          includeDefaults: a.includeDefaults ?? true,
        });
        // `extended`: each skill's sourceInfo too (protocol 1.1)
        const shown = a.extended === true ? (s) => ({ ...pickSkill(s), sourceInfo: s.sourceInfo }) : pickSkill;
        return { skills: result.skills.map(shown), diagnostics: result.diagnostics };
      }),

    "skills.format": (a) => skills.formatSkillsForPrompt(a.skills.map(asSkill), a.fileReadTool ?? undefined),

    "prompt.build": (a) => {
      if (typeof a.cwd !== "string") throw invalid("cwd: must be a string");
      const options = { ...a, skills: a.skills?.map(asSkill) };
      for (const key of Object.keys(options)) if (options[key] === null) delete options[key];
      return shownDocs(systemPrompt.buildSystemPrompt(options));
    },

    // resources.load: DefaultResourceLoader.reload() with the trust flag on the
    // SettingsManager. Extensions are never loaded (that runs their code): the list of paths
    // Pi hands its extension loader is kept instead (`include: ["extensions"]`, 1.2)
    "resources.load": (a) =>
      inTree(a, async (real, _, paths) => {
        const cwd = real(a.cwd);
        const agentDir = real(a.agentDir);
        const include = new Set(a.include ?? []);
        for (const part of include) {
          if (!INCLUDE_PARTS.includes(part)) throw invalid(`include: '${part}' is none of ${INCLUDE_PARTS.join(", ")}`);
        }
        const asPath = (value) => (typeof value === "string" && value.startsWith("/") ? real(value) : value);
        // settings entries are paths of the tree too (an absolute one would name the machine's)
        const root = real("/");
        for (const [file, base] of [[agentDir + "/settings.json", a.agentDir], [cwd + "/.pi/settings.json", `${a.cwd}/.pi`]]) {
          if (existsSync(file)) confineSettings(root, file, { base, home: a.home });
        }
        const settingsManager = settings.SettingsManager.create(cwd, agentDir, { projectTrusted: a.projectTrusted ?? true });
        // a package source (npm:, git:, a URL) needs an install, which an offline suite never makes
        const extensionPaths = paths(a.additionalExtensionPaths, "additionalExtensionPaths");
        for (const source of a.additionalExtensionPaths ?? []) {
          if (!pathUtils.isLocalPath(source)) throw invalid(`additionalExtensionPaths: '${source}' is a package source, not a path`);
        }
        for (const [scope, found] of [["project", settingsManager.getProjectSettings()], ["user", settingsManager.getGlobalSettings()]]) {
          for (const entry of found.packages ?? []) {
            const source = typeof entry === "string" ? entry : entry?.source;
            if (typeof source === "string" && !pathUtils.isLocalPath(source)) {
              throw invalid(`tree: the ${scope} settings name the package source '${source}', which needs an install`);
            }
          }
        }
        const options = {
          cwd,
          agentDir,
          settingsManager,
          additionalSkillPaths: paths(a.additionalSkillPaths, "additionalSkillPaths"),
          additionalPromptTemplatePaths: paths(a.additionalPromptTemplatePaths, "additionalPromptTemplatePaths"),
          additionalThemePaths: paths(a.additionalThemePaths, "additionalThemePaths"),
          additionalExtensionPaths: extensionPaths,
          noSkills: a.noSkills ?? false,
          noPromptTemplates: a.noPromptTemplates ?? false,
          noContextFiles: a.noContextFiles ?? false,
          noExtensions: a.noExtensions ?? false,
          noThemes: a.noThemes ?? false,
          systemPrompt: asPath(a.systemPrompt ?? undefined),
          appendSystemPrompt: a.appendSystemPrompt == null ? undefined : a.appendSystemPrompt.map(asPath),
        };
        // a release whose loader has no final extension pass to stand in for would run the
        // extensions' code: it loads none, and cannot say which it would load
        const probe = new loader.DefaultResourceLoader({ cwd, agentDir, settingsManager });
        if (typeof probe.loadFinalExtensionSet !== "function") {
          if (include.has("extensions") || (a.additionalExtensionPaths ?? []).length > 0) {
            throw invalid(`include: pi ${context.version}'s resource loader cannot list extensions without loading them`);
          }
          Object.assign(options, { noExtensions: true, additionalExtensionPaths: [] });
        }
        const resourceLoader = new loader.DefaultResourceLoader(options);
        let loadedPaths = [];
        resourceLoader.loadFinalExtensionSet = async (list) => {
          loadedPaths = [...list];
          return { extensions: [], errors: [], warnings: [], runtime: extensionsLoader.createExtensionRuntime() };
        };
        await resourceLoader.reload();
        const skillsResult = resourceLoader.getSkills();
        const prompts = resourceLoader.getPrompts();
        const extended = a.extended === true;
        const result = {
          agentsFiles: resourceLoader.getAgentsFiles().agentsFiles.map(({ path, content }) => ({ path, content })),
          skills: skillsResult.skills.map((s) =>
            extended
              ? { ...pickSkill(s), sourceInfo: s.sourceInfo }
              : { name: s.name, filePath: s.filePath, disableModelInvocation: s.disableModelInvocation },
          ),
          skillDiagnostics: skillsResult.diagnostics,
          prompts: prompts.prompts.map(({ name, filePath, description, argumentHint, sourceInfo }) =>
            extended ? { name, filePath, description, argumentHint, sourceInfo } : { name, filePath },
          ),
          promptDiagnostics: prompts.diagnostics,
          systemPrompt: resourceLoader.getSystemPrompt() ?? null,
          appendSystemPrompt: resourceLoader.getAppendSystemPrompt(),
        };
        if (extended) {
          // `extended` (protocol 1.1): where the system prompt and append items were read from
          result.systemPromptSource = resourceLoader.getSystemPromptSource() ?? null;
          result.appendSystemPromptSources = resourceLoader.getAppendSystemPromptSources();
        }
        // `include` (protocol 1.2): the parts of the loader's answer asked for
        if (include.has("promptContent")) {
          prompts.prompts.forEach((p, i) => (result.prompts[i].content = p.content));
        }
        if (include.has("themes")) {
          const themes = resourceLoader.getThemes();
          result.themes = themes.themes.map((t) => {
            const theme = { name: t.name ?? null, sourcePath: t.sourcePath ?? null };
            if (extended) theme.sourceInfo = t.sourceInfo;
            return theme;
          });
          // a theme that is no JSON (Pi quotes V8's SyntaxError after its prefix) or that fails
          // as JavaScript fails (V8's TypeError): the engine's words, written as their kind
          result.themeDiagnostics = themes.diagnostics.map((d) => ({ ...d, message: portable(d.message) }));
        }
        if (include.has("extensions")) {
          result.extensionPaths = loadedPaths;
          result.extensionErrors = resourceLoader.getExtensions().errors;
        }
        return result;
      }),
  };
}
