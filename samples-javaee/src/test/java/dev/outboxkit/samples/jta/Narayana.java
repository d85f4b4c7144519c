package dev.outboxkit.samples.jta;

import com.arjuna.ats.arjuna.common.CoreEnvironmentBean;
import com.arjuna.ats.arjuna.common.CoreEnvironmentBeanException;
import com.arjuna.ats.arjuna.common.ObjectStoreEnvironmentBean;
import com.arjuna.ats.jta.common.jtaPropertyManager;
import com.arjuna.common.internal.util.propertyservice.BeanPopulator;
import javax.transaction.TransactionManager;
import javax.transaction.TransactionSynchronizationRegistry;

/**
 * The JVM's one Narayana transaction manager (javax line), its object store under {@code target/}
 * so that no test writes into the working directory's default {@code ObjectStore}.
 */
final class Narayana {
  private static TransactionManager transactionManager;
  private static TransactionSynchronizationRegistry registry;

  private Narayana() {}

  static synchronized TransactionManager transactionManager() {
    init();
    return transactionManager;
  }

  static synchronized TransactionSynchronizationRegistry synchronizationRegistry() {
    init();
    return registry;
  }

  private static void init() {
    if (transactionManager != null) {
      return;
    }
    String dir = System.getProperty("narayana.store", "target/narayana-store");
    BeanPopulator.getDefaultInstance(ObjectStoreEnvironmentBean.class).setObjectStoreDir(dir);
    BeanPopulator.getNamedInstance(ObjectStoreEnvironmentBean.class, "communicationStore")
        .setObjectStoreDir(dir);
    BeanPopulator.getNamedInstance(ObjectStoreEnvironmentBean.class, "stateStore")
        .setObjectStoreDir(dir);
    try {
      BeanPopulator.getDefaultInstance(CoreEnvironmentBean.class)
          .setNodeIdentifier("outboxkit-tests");
    } catch (CoreEnvironmentBeanException e) {
      throw new IllegalStateException(e);
    }
    transactionManager = com.arjuna.ats.jta.TransactionManager.transactionManager();
    registry = jtaPropertyManager.getJTAEnvironmentBean().getTransactionSynchronizationRegistry();
  }
}
