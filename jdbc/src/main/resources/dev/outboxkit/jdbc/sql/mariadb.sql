-- MariaDB 10.6+: the MySQL statements (mysql.sql) except where MariaDB's variables differ. The
-- format is explained in common.sql.

-- As in mysql.sql, with MariaDB's max_statement_time (seconds, fractions allowed), which bounds
-- every statement, where MySQL's max_execution_time bounds only SELECTs.
-- name: boundTransaction
SET @outboxkit_wait_timeout = @@SESSION.wait_timeout,
    @outboxkit_lock_wait_timeout = @@SESSION.innodb_lock_wait_timeout,
    @outboxkit_max_statement_time = @@SESSION.max_statement_time,
    SESSION wait_timeout = CAST(CEIL(:timeout_ms / 1000) AS UNSIGNED),
    SESSION innodb_lock_wait_timeout = CAST(CEIL(:timeout_ms / 1000) AS UNSIGNED),
    SESSION max_statement_time = :timeout_ms / 1000

-- name: unboundTransaction
SET SESSION wait_timeout = @outboxkit_wait_timeout,
    SESSION innodb_lock_wait_timeout = @outboxkit_lock_wait_timeout,
    SESSION max_statement_time = @outboxkit_max_statement_time
