/** The Channels object of a number with the given features. */
export function channelsFor(features: string[]) {
  return {
    sms: {
      active: features.includes('sms'),
      universalReply: false,
      supportedDestinations: {},
      regulatory: { brandStatus: 'unregistered' },
    },
    voice: { active: features.includes('voice'), features: features.filter((f) => f !== 'sms') },
    whatsapp: { active: false },
  };
}
