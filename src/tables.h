/* SPDX-License-Identifier: GPL-2.0 */
/* The command line's choices from the outputs' and the sources' tables (tables.c). */
#ifndef KVMTOP_TABLES_H
#define KVMTOP_TABLES_H

/* Give options_parse() -o's formats and --source's names: before it runs. */
void options_tables(void);

#endif
