export * from './page-location';
export * from './page-query';
export * from './page-query.dto';
export * from './paginator';
export * from './paginated-response.decorator';
export * from './paging.decorator';
export * from './hourly-window';
