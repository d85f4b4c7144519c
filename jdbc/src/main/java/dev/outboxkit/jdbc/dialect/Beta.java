package dev.outboxkit.jdbc.dialect;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks an API that is public but not yet frozen: it may change in a minor release, with a note in
 * the release notes, until it has met more databases than the ones it was written for.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.PACKAGE})
public @interface Beta {}
