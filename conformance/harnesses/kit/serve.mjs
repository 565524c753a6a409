// Protocol v1 on stdio for Node and Bun: the one loop the Pi adapter (adapter.mjs) and the
// fork's adapter (ports/oh_my_pi/adapter.mjs) serve with, the twin of jsonlines.py.
//
// serve(handlers, implementation) answers one request per line until stdin closes: hello
// lists the handlers' ops; any other op runs its handler (which may be async), with a
// `tree` argument first checked by the shared tree code (tree.mjs), as every adapter does;
// what a handler throws becomes a wire error (errors.mjs: InvalidInput naming the field,
// Unsupported, anything else internal with the JS stack in `detail`, the tree roots made
// for the request stripped from the text). A line that is not JSON has no id to answer:
// it is named on stderr and skipped.
import { createInterface } from "node:readline";
import { wireError } from "./errors.mjs";
import { takeRoots, validateTree } from "./tree.mjs";

export async function serve(handlers, implementation) {
  const hello = { protocol: 1, implementation, ops: Object.keys(handlers).sort() };

  async function answer(request) {
    if (request.op === "hello") return { id: request.id, result: hello };
    const handler = handlers[request.op];
    if (!handler) {
      return { id: request.id, error: { type: "unsupported", message: `op ${request.op} is not supported` } };
    }
    takeRoots();
    try {
      const args = request.args ?? {};
      if ("tree" in args) validateTree(args.tree); // the tree rules of every adapter (WIRE-1)
      return { id: request.id, result: await handler(args) };
    } catch (error) {
      return { id: request.id, error: wireError(error, takeRoots()) };
    }
  }

  const input = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of input) {
    if (!line.trim()) continue;
    let request;
    try {
      request = JSON.parse(line);
    } catch (error) {
      process.stderr.write(`bad request line: ${error}\n`);
      continue;
    }
    // JSON.stringify escapes lone surrogates (\udXXX), so the line is valid UTF-8
    process.stdout.write(JSON.stringify(await answer(request)) + "\n");
  }
}
