/** What verifying a number against Twilio needs: the API root and the account's credentials. */
export interface TwilioAccount {
  baseUrl: string;
  accountSid: string;
  authToken: string;
}

interface IncomingNumbersPage {
  incoming_phone_numbers?: { phone_number?: string; capabilities?: { sms?: boolean } }[];
}

/**
 * Whether the Twilio account holds this number, by its IncomingPhoneNumbers resource
 * (`GET /2010-04-01/Accounts/{sid}/IncomingPhoneNumbers.json?PhoneNumber=…`). Answers false for
 * anything short of a listing that contains the number with SMS capability (not listed, refused
 * credentials, an error status, no answer within the timeout).
 */
export async function twilioHoldsNumber(
  account: TwilioAccount,
  number: string,
  timeoutMs = 5000,
): Promise<boolean> {
  if (!account.accountSid || !account.authToken) return false;
  const url = new URL(
    `${account.baseUrl.replace(/\/$/, '')}/2010-04-01/Accounts/${encodeURIComponent(account.accountSid)}/IncomingPhoneNumbers.json`,
  );
  url.searchParams.set('PhoneNumber', number);
  try {
    const res = await fetch(url, {
      headers: {
        authorization: `Basic ${Buffer.from(`${account.accountSid}:${account.authToken}`).toString('base64')}`,
        accept: 'application/json',
      },
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (res.status !== 200) {
      await res.body?.cancel();
      return false;
    }
    const page = (await res.json()) as IncomingNumbersPage;
    return (page.incoming_phone_numbers ?? []).some(
      (n) => n.phone_number === number && n.capabilities?.sms !== false,
    );
  } catch {
    return false;
  }
}
