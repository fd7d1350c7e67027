/** A redirect (hosted page) payment before and after the buyer chose a method. */
export interface RedirectSession {
  sid: string;
  merchantVa: string;
  createdAt: number;
  expiresAt: number;
  amount: number;
  items: { product: string; qty: number; price: number; description?: string }[];
  buyer: { name: string; phone: string; email: string };
  notifyUrl: string;
  returnUrl?: string;
  cancelUrl?: string;
  referenceId: string;
  /** Pre-selected method (`paymentMethod`), if any. */
  method?: string;
  comments?: string;
}
