/**
 * Name forms used by the generators: `BookLoan` → `book-loan` (files), `bookLoan` (values),
 * `BookLoan` (types and models), `bookLoans` (paths).
 *
 * @example
 * words("bookLoan"); // ["book", "loan"]
 */
export function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word.toLowerCase());
}

/** `book loan` → `book-loan`. */
export const kebabCase = (name: string): string => words(name).join("-");

/** `book-loan` → `BookLoan`. */
export const pascalCase = (name: string): string => words(name).map((word) => word[0]!.toUpperCase() + word.slice(1)).join("");

/** `book-loan` → `bookLoan`. */
export const camelCase = (name: string): string => {
  const pascal = pascalCase(name);
  return pascal ? pascal[0]!.toLowerCase() + pascal.slice(1) : pascal;
};

/** `category` → `categories`, `box` → `boxes`, `book` → `books` (English plural, good enough for paths). */
export function plural(word: string): string {
  if (/[^aeiou]y$/i.test(word)) return `${word.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/i.test(word)) return `${word}es`;
  return `${word}s`;
}

/** `created at` → `Created at`: a readable label for a field name. */
export function label(name: string): string {
  const text = words(name).join(" ");
  return text ? text[0]!.toUpperCase() + text.slice(1) : name;
}

/** Whether a name is a usable JavaScript identifier (field names are emitted unquoted). */
export const isIdentifier = (name: string): boolean => /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name);
