/** How the server runs (`NODE_ENV=production` or not), below the configuration and what reads it. */
export type DeploymentMode = 'development' | 'production';
