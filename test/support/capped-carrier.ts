/**
 * A test service whose one extra provider, `name`, is an SMPP carrier on loopback (RecordingSmsc)
 * that takes at most `maxPerSecond` submissions a second, with its link up and no worker running
 * (a test starts the dispatcher when it races). Used by the fair-dispatch tests.
 */
import { startTestService, type TestService } from '../helpers.ts';
import { RecordingSmsc } from './recording-smsc.ts';

export async function startCappedCarrier(
  name: string,
  maxPerSecond: number,
): Promise<{ svc: TestService; smsc: RecordingSmsc; close: () => Promise<void> }> {
  const smsc = new RecordingSmsc(name, 'secret');
  const url = await smsc.listen();
  const svc = await startTestService(
    { dispatchInFlight: 64 },
    {
      env: {
        PROVIDERS: JSON.stringify([
          { name, kind: 'smpp', url, systemId: name, password: 'secret', maxPerSecond },
        ]),
      },
    },
  );
  // The providers' links (the dispatcher runs only while a test races).
  svc.startWorkers([]);
  return {
    svc,
    smsc,
    close: async () => {
      await svc.close();
      await smsc.close();
    },
  };
}
