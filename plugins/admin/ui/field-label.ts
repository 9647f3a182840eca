/** A field name as people read it: `ownerId` → "Owner id", `created_at` → "Created at". */
export function fieldLabel(name: string): string {
  const words = name
    .replace(/^_+/, "")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_.-]+/g, " ")
    .trim()
    .toLowerCase();
  if (words === "") return name;
  return words[0]!.toUpperCase() + words.slice(1);
}
