/** A redirect (hosted page) payment before and after the buyer chose a method. */
export interface RedirectSession {
  sid: string;
  merchantVa: string;
  createdAt: number;
  expiresAt: number;
  amount: number;
  items: { product: string; qty: number; price: number; description?: string; imageUrl?: string }[];
  buyer: { name: string; phone: string; email: string };
  notifyUrl: string;
  returnUrl?: string;
  cancelUrl?: string;
  referenceId: string;
  /** Pre-selected method (`paymentMethod`), if any. */
  method?: string;
  comments?: string;
  /** The page's language (`lang`): `en` opens it in English. */
  lang?: 'id' | 'en';
  /** The COD pickup area the merchant sent (`pickupArea`). */
  pickupArea?: string;
}
