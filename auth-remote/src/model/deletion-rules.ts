/** Deletion is confirmed by typing the account's email (case and surrounding spaces ignored). */
export function confirmsDeletion(typed: string, email: string): boolean {
  return typed.trim().toLowerCase() === email.trim().toLowerCase() && email.trim() !== '';
}
