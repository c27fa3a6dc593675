/* junit.h: JUnit XML for CI systems (Jenkins, GitLab, GitHub test reporters), written by any
 * subcommand that hands out verdicts (shadow; diff may follow).
 *
 * The de-facto schema those systems read: one <testsuites> root holding one <testsuite> with the
 * counts tests, failures, errors and skipped, optional <properties>, and a <testcase classname=
 * name= time=> per test, holding <failure message= type=>text</failure>, <error ...>, or <skipped
 * message=/> when it did not pass. Text is escaped by escape.h's XML rule (& < > " ' as entities, the
 * control characters XML 1.0 forbids and bytes that are not UTF-8 as U+FFFD), so the document is
 * always well-formed. Cases are held until gt_junit_finish (the suite's counts come first in the file).
 */
#ifndef GT_JUNIT_H
#define GT_JUNIT_H

#include <stdio.h>

enum gt_junit_result { GT_JUNIT_PASS = 0, GT_JUNIT_FAILURE, GT_JUNIT_ERROR, GT_JUNIT_SKIPPED };

struct gt_junit;

/* NULL when out of memory. suite: the <testsuite name>. */
struct gt_junit *gt_junit_new(const char *suite);
/* A <property name value>; 0 or GT_ERR_NOMEM. */
int gt_junit_property(struct gt_junit *j, const char *name, const char *value);
/* A test case. message: one line (the attribute); text: the element's body (may be NULL or hold
 * several lines); both ignored for GT_JUNIT_PASS. time_s < 0: no time attribute. 0 or GT_ERR_NOMEM. */
int gt_junit_case(struct gt_junit *j, const char *classname, const char *name, double time_s,
                  enum gt_junit_result result, const char *message, const char *text);
/* Writes the document to f. 0, or GT_ERR_IO when f reports a write error. */
int gt_junit_finish(struct gt_junit *j, FILE *f);
void gt_junit_free(struct gt_junit *j);

#endif
