// API changes between Pi releases, one function per change, each named by the release
// that made it. A shim only reshapes what crosses the adapter (an argument Pi's function
// takes, a value it hands to a scripted model); it never changes what Pi decides. Ops
// call these instead of reading a shape that moved; the comment says when it moved.

// 0.86.1: a model request carries a transcript. `normalizeContext` folds `systemPrompt`
// (and tools) into a leading `{role: "system"}` message; before, the prompt was a field.
export function modelRequest(ctx) {
  if (typeof ctx.systemPrompt === "string" || ctx.messages?.[0]?.role !== "system") {
    return { systemPrompt: ctx.systemPrompt, messages: ctx.messages ?? [] };
  }
  const [system, ...messages] = ctx.messages;
  const text = typeof system.content === "string"
    ? system.content
    : (system.content ?? []).map((block) => block.text ?? "").join("");
  return { systemPrompt: text, messages };
}

// 0.99.1: a tool reports a failure it detected (a non-zero exit of bash) as a result with
// `isError: true`; before, execute() threw and the thrown message was the text.
export function toolFailed(result) {
  return result?.isError === true;
}

// 1.5.0: pi-ai no longer re-exports TypeBox's `Type`; Pi's tools import the `typebox`
// package themselves. A scripted tool declares its parameters with whichever Pi has.
export async function typeBuilder(packageDir, ai) {
  if (ai.Type) return ai.Type;
  const { createRequire } = await import("node:module");
  const { pathToFileURL } = await import("node:url");
  const resolved = createRequire(`${packageDir}/package.json`).resolve("typebox");
  return (await import(pathToFileURL(resolved).href)).Type;
}
