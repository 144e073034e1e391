export declare const MAX_INSTANCE: number;
export declare function instanceOf(pathname: string): string;
