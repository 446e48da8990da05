/**
 * Resolves in a later task: what follows runs after the browser has had its turn (a paint, an
 * input). Used to keep work on the way to a usable route in tasks under 50 ms at 4× CPU.
 */
export function nextTask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
