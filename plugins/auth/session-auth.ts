export async function startSessionAuth(..._args: unknown[]): Promise<never> {
  throw new Error("not yet");
}
