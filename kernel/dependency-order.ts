import { KernelErrors } from "./kernel-errors.js";

interface Node {
  readonly name: string;
  readonly dependsOn?: readonly string[];
}

/**
 * Orders items so each comes after everything it depends on. Ties keep registration order, so the
 * start order is predictable from how the app was assembled.
 *
 * @example
 * orderByDependencies([{ name: "rest", dependsOn: ["database"] }, { name: "database" }]);
 * // → database, rest
 */
export function orderByDependencies<T extends Node>(items: readonly T[]): T[] {
  const byName = new Map(items.map((item) => [item.name, item]));
  for (const item of items) {
    for (const dependency of item.dependsOn ?? []) {
      if (!byName.has(dependency)) throw KernelErrors.MISSING_DEPENDENCY(item.name, dependency);
    }
  }
  const ordered: T[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (item: T, path: string[]): void => {
    const seen = state.get(item.name);
    if (seen === "done") return;
    if (seen === "visiting") {
      const start = path.indexOf(item.name);
      throw KernelErrors.DEPENDENCY_CYCLE([...path.slice(start), item.name].join(" → "));
    }
    state.set(item.name, "visiting");
    for (const dependency of item.dependsOn ?? []) visit(byName.get(dependency)!, [...path, item.name]);
    state.set(item.name, "done");
    ordered.push(item);
  };
  for (const item of items) visit(item, []);
  return ordered;
}
