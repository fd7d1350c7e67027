/** Whether a text is the shape of a merchant's virtual account number (VA): 4 to 32 digits. */
export function isVaNumber(text: string): boolean {
  return /^\d{4,32}$/.test(text);
}
