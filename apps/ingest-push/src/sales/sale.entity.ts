import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * One sale line, identified by (account, OrderId, ProductId): uploading it again updates it.
 * Columns follow the spec's fields (snake_case); floats are double precision, date-times timestamptz.
 * No foreign key to the account: the bulk merge would pay a lookup per row, and rows are only
 * written by the ingestion, which takes the account from the authenticated key.
 */
@Entity({ name: 'sales' })
@Index('sales_account_order_date_idx', ['accountId', 'orderDate'])
@Index('sales_account_store_idx', ['accountId', 'storeId'])
// Customers are found by the digits of their CPF/CNPJ (an expression index the migration builds; TypeORM cannot declare one).
@Index('sales_account_customer_digits_idx', { synchronize: false })
export class SaleEntity {
  @PrimaryColumn({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  @PrimaryColumn({ name: 'order_id', type: 'text' })
  orderId!: string;

  @PrimaryColumn({ name: 'product_id', type: 'text' })
  productId!: string;

  @Column({ name: 'order_date', type: 'timestamptz' })
  orderDate!: Date;

  @Column({ name: 'order_status', type: 'text' })
  orderStatus!: string;

  @Column({ name: 'order_total', type: 'double precision', nullable: true })
  orderTotal!: number | null;

  @Column({ name: 'order_total_quantity', type: 'integer', nullable: true })
  orderTotalQuantity!: number | null;

  @Column({ name: 'order_total_weight', type: 'double precision', nullable: true })
  orderTotalWeight!: number | null;

  @Column({ name: 'order_discount', type: 'double precision', nullable: true })
  orderDiscount!: number | null;

  @Column({ name: 'product_name', type: 'text', nullable: true })
  productName!: string | null;

  @Column({ name: 'product_quantity', type: 'integer', nullable: true })
  productQuantity!: number | null;

  @Column({ name: 'product_price', type: 'double precision' })
  productPrice!: number;

  @Column({ name: 'product_brand', type: 'text', nullable: true })
  productBrand!: string | null;

  @Column({ name: 'product_category', type: 'text', nullable: true })
  productCategory!: string | null;

  @Column({ name: 'product_subcategory', type: 'text', nullable: true })
  productSubcategory!: string | null;

  @Column({ name: 'store_id', type: 'text' })
  storeId!: string;

  @Column({ name: 'store_name', type: 'text', nullable: true })
  storeName!: string | null;

  @Column({ name: 'store_city', type: 'text', nullable: true })
  storeCity!: string | null;

  @Column({ name: 'store_state', type: 'text', nullable: true })
  storeState!: string | null;

  @Column({ name: 'shipping_price', type: 'double precision', nullable: true })
  shippingPrice!: number | null;

  @Column({ name: 'delivery_city', type: 'text', nullable: true })
  deliveryCity!: string | null;

  @Column({ name: 'delivery_state', type: 'text', nullable: true })
  deliveryState!: string | null;

  @Column({ name: 'payment_methods', type: 'text', nullable: true })
  paymentMethods!: string | null;

  @Column({ name: 'vendedor_name', type: 'text', nullable: true })
  vendedorName!: string | null;

  @Column({ name: 'client_id', type: 'text', nullable: true })
  clientId!: string | null;

  @Column({ name: 'customer_name', type: 'text', nullable: true })
  customerName!: string | null;

  @Column({ name: 'customer_cpf_cnpj', type: 'text' })
  customerCpfCnpj!: string;

  @Column({ name: 'customer_city', type: 'text', nullable: true })
  customerCity!: string | null;

  @Column({ name: 'customer_state', type: 'text', nullable: true })
  customerState!: string | null;

  @Column({ name: 'customer_phone', type: 'text' })
  customerPhone!: string;

  @Column({ name: 'customer_email', type: 'text' })
  customerEmail!: string;

  @Column({ name: 'customer_birth', type: 'timestamptz', nullable: true })
  customerBirth!: Date | null;

  @Column({ name: 'customer_gender', type: 'text', nullable: true })
  customerGender!: string | null;

  /** The ingestion that last wrote this line. */
  @Column({ name: 'ingestion_id', type: 'uuid' })
  ingestionId!: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt!: Date;
}
