/** Types of `fake-answers.mjs` for the TypeScript benches. */
export declare const anthropicEvent: (type: string, data: object) => string;
export declare const anthropicStart: string;
export declare const anthropicStream: string;
export declare const openAiStream: string;
