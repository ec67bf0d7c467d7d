/**
 * The languages the network takes templates in, as its "Supported Languages" table lists them
 * (developers.facebook.com/docs/whatsapp/api/messages/message-templates). The sandbox refuses
 * any other code, as the network does; with `cloud` the network itself decides, so a language
 * it adds later works without a gateway release.
 */
export const TEMPLATE_LANGUAGES: ReadonlySet<string> = new Set([
  'af', 'sq', 'ar', 'az', 'bn', 'bg', 'ca', 'zh_CN', 'zh_HK', 'zh_TW', 'hr', 'cs', 'da', 'nl', 'en', 'en_GB', 'en_US', 'et',
  'fil', 'fi', 'fr', 'ka', 'de', 'el', 'gu', 'ha', 'he', 'hi', 'hu', 'id', 'ga', 'it', 'ja', 'kn', 'kk', 'rw_RW', 'ko', 'ky_KG',
  'lo', 'lv', 'lt', 'mk', 'ms', 'ml', 'mr', 'nb', 'fa', 'pl', 'pt_BR', 'pt_PT', 'pa', 'ro', 'ru', 'sr', 'sk', 'sl', 'es', 'es_AR',
  'es_ES', 'es_MX', 'sw', 'sv', 'ta', 'te', 'th', 'tr', 'uk', 'ur', 'uz', 'vi', 'zu',
]);
