import type { CallToolResult } from "@modelcontextprotocol/server";

/**
 * A tool's answer as one text block. Tools return text (code, markdown, JSON) and never write files.
 *
 * @example
 * return textResult("```ts\nexport const x = 1;\n```");
 */
export function textResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }] };
}

/**
 * A tool error the caller can act on: `isError: true`, never a protocol failure.
 *
 * @example
 * return toolError("Unknown component \"Foo\". Did you mean: modelRouter?");
 */
export function toolError(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/** One generated file, rendered as a path heading and a fenced code block. */
export interface GeneratedFile {
  readonly path: string;
  readonly language: string;
  readonly content: string;
}

/**
 * Generated files as markdown: `### path` then the fenced content, so an assistant (or a test)
 * can tell the files apart. Each fence is longer than any run of backticks in its content
 * (CommonMark), so a README's own code block does not close it.
 *
 * @example
 * renderFiles([{ path: "src/models/book.ts", language: "ts", content: "..." }], "Next: register the router.");
 */
export function renderFiles(files: readonly GeneratedFile[], notes?: string): string {
  const blocks = files.map((file) => {
    const fence = "`".repeat(Math.max(3, ...(file.content.match(/`+/g) ?? []).map((run) => run.length + 1)));
    return `### ${file.path}\n\n${fence}${file.language}\n${file.content.trimEnd()}\n${fence}`;
  });
  return [...blocks, ...(notes ? [notes.trim()] : [])].join("\n\n") + "\n";
}
