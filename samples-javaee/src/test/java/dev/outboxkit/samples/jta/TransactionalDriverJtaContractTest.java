package dev.outboxkit.samples.jta;

import com.mysql.cj.jdbc.MysqlXADataSource;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.TestDatabase;
import javax.sql.DataSource;
import javax.sql.XADataSource;
import org.postgresql.xa.PGXADataSource;

/**
 * Narayana's own {@code TransactionalDriver} over the driver's XA data source ({@code
 * PGXADataSource}, Connector/J's {@code MysqlXADataSource}). An enlisted connection reports
 * auto-commit on, so the application's writer needs {@code managedTransactions(true)}.
 */
abstract class TransactionalDriverJtaContractTest extends JtaContractTest {
  @Override
  protected String pool() {
    return "TransactionalDriver";
  }

  @Override
  protected boolean reportsAutoCommitWhenEnlisted() {
    return true;
  }

  @Override
  protected DataSource jtaDataSource(TestDatabase db) {
    XADataSource xa;
    if (flavor() == Flavor.POSTGRES) {
      PGXADataSource pg = new PGXADataSource();
      pg.setUrl(db.jdbcUrl()); // user and schema (currentSchema) travel in the URL
      if (db.user() != null) {
        pg.setUser(db.user());
        pg.setPassword(db.password());
      }
      xa = pg;
    } else {
      MysqlXADataSource mysql = new MysqlXADataSource();
      mysql.setUrl(db.jdbcUrl());
      if (db.user() != null) {
        mysql.setUser(db.user());
        mysql.setPassword(db.password());
      }
      xa = mysql;
    }
    return new TransactionalDriverDataSource(xa, db.name());
  }
}
