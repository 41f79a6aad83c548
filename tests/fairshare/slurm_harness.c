/*
 * Drives Slurm 22.05's own priority/multifactor plugin (Fair Tree or classic)
 * on association trees read from standard input, and prints every
 * association's fair-share fields at full precision.
 *
 * It is Slurm's regression test 24.4 (testsuite/expect/test24.4.prog.c) with
 * the hard-coded tree replaced by trees read from a file. It is built by
 * tests/fairshare/build_harness.sh against Debian's source package of the
 * installed Slurm and links libslurmfull; the plugin is the installed
 * priority_multifactor.so, loaded by priority_g_init() as slurmctld loads it.
 * It compiles Slurm's GPL code, so it lives in tests/ and is never installed.
 *
 * Input, one tree after another:
 *   tree fair_tree|classic
 *   assoc ID PARENT_ID SHARES|parent USAGE ACCOUNT USER|-
 *   ...
 *   end
 * The root is the assoc with PARENT_ID 0 and must come first. USAGE is a
 * user's raw usage (accounts must give 0: Slurm adds each user's usage to
 * every ancestor, as the job accounting does).
 *
 * Output, per tree:
 *   tree
 *   assoc ID SHARES_NORM USAGE_RAW USAGE_NORM USAGE_EFCTV LEVEL_FS FS_FACTOR JOB_FACTOR
 *   end
 * where SHARES_NORM and the factors are doubles printed with %a, the usages and
 * LEVEL_FS Slurm's long doubles printed with %La. FS_FACTOR is what `sshare -l`
 * prints: the user's fs_factor under Fair Tree (accounts: -1), and
 * priority_g_calc_fs_factor(usage_efctv, shares_norm) of the values sshare
 * receives (doubles) under classic. JOB_FACTOR is what a job of the user gets
 * (_get_fairshare_priority: the fair-share parent's long doubles for a
 * FairShare=parent user; accounts: -1).
 *
 * Each tree is computed in a child process, so no association state carries
 * over: the child sets the tree up, starts the plugin (its decay thread runs
 * the fair-share pass once at start), waits for that pass, prints, exits.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "src/common/assoc_mgr.h"
#include "src/common/log.h"
#include "src/common/slurm_priority.h"
#include "src/common/xstring.h"
#include "src/sshare/sshare.h"

/* The globals slurmctld has and the plugin reads (as in test24.4.prog.c). */
void *acct_db_conn = NULL;
uint32_t cluster_cpus = 50;
int exit_code = 0;
sshare_time_format_t time_format = SSHARE_TIME_MINS;
char *time_format_string = "Minutes";
time_t last_job_update = (time_t)0;
uint16_t running_cache = RUNNING_CACHE_STATE_NOTRUNNING;
List job_list = NULL;

#define MAX_ASSOCS 4096
#define SENTINEL -7.0L

typedef struct {
	uint32_t id, parent_id, shares;
	long double usage;
	char acct[64], user[64];
} input_assoc_t;

static input_assoc_t input[MAX_ASSOCS];
static int input_count;
static int fair_tree_mode;

static void _list_delete_job(void *job_entry)
{
	xfree(job_entry);
}

/* Reads one tree; returns 0 at end of input, -1 on a malformed line. */
static int _read_tree(FILE *in)
{
	char line[512], mode[32];
	input_count = 0;
	for (;;) {
		if (!fgets(line, sizeof(line), in))
			return 0;
		if (sscanf(line, "tree %31s", mode) == 1)
			break;
		if (line[0] != '\n')
			return -1;
	}
	fair_tree_mode = !strcmp(mode, "fair_tree");
	while (fgets(line, sizeof(line), in)) {
		char shares[32], usage[64];
		input_assoc_t *a;
		if (!strncmp(line, "end", 3))
			return 1;
		if (input_count == MAX_ASSOCS)
			return -1;
		a = &input[input_count];
		if (sscanf(line, "assoc %" SCNu32 " %" SCNu32 " %31s %63s %63s %63s",
			   &a->id, &a->parent_id, shares, usage, a->acct,
			   a->user) != 6)
			return -1;
		a->shares = !strcmp(shares, "parent") ?
			SLURMDB_FS_USE_PARENT : (uint32_t)strtoul(shares, NULL, 10);
		a->usage = strtold(usage, NULL);
		input_count++;
	}
	return -1;
}

static void _setup_assoc_list(void)
{
	slurmdb_update_object_t update;
	slurmdb_tres_rec_t *tres;
	assoc_init_args_t assoc_init_arg;
	int i;

	assoc_mgr_assoc_list = list_create(slurmdb_destroy_assoc_rec);
	assoc_mgr_user_list = list_create(slurmdb_destroy_user_rec);
	assoc_mgr_qos_list = list_create(slurmdb_destroy_qos_rec);

	memset(&assoc_init_arg, 0, sizeof(assoc_init_args_t));
	assoc_init_arg.running_cache = &running_cache;
	running_cache = RUNNING_CACHE_STATE_RUNNING;
	assoc_mgr_init(NULL, &assoc_init_arg, SLURM_SUCCESS);

	memset(&update, 0, sizeof(slurmdb_update_object_t));
	update.type = SLURMDB_ADD_TRES;
	update.objects = list_create(slurmdb_destroy_tres_rec);
	tres = xmalloc(sizeof(slurmdb_tres_rec_t));
	tres->id = 1;
	tres->type = xstrdup("cpu");
	list_append(update.objects, tres);
	if (assoc_mgr_update_tres(&update, false))
		error("assoc_mgr_update_tres: %m");
	FREE_NULL_LIST(update.objects);

	memset(&update, 0, sizeof(slurmdb_update_object_t));
	update.type = SLURMDB_ADD_ASSOC;
	update.objects = list_create(slurmdb_destroy_assoc_rec);
	for (i = 0; i < input_count; i++) {
		slurmdb_assoc_rec_t *assoc = xmalloc(sizeof(slurmdb_assoc_rec_t));
		assoc->cluster = xstrdup(slurm_conf.cluster_name);
		assoc->usage = slurmdb_create_assoc_usage(g_tres_count);
		assoc->id = input[i].id;
		assoc->parent_id = input[i].parent_id;
		if (input[i].parent_id)
			assoc->shares_raw = input[i].shares;
		assoc->usage->usage_raw = input[i].usage;
		assoc->acct = xstrdup(input[i].acct);
		if (strcmp(input[i].user, "-"))
			assoc->user = xstrdup(input[i].user);
		list_append(update.objects, assoc);
	}
	if (assoc_mgr_update_assocs(&update, false))
		error("assoc_mgr_update_assocs: %m");
	list_destroy(update.objects);
}

/* Marks every child of the root, so the first fair-share pass is visible. */
static void _mark_root_children(void)
{
	ListIterator itr;
	slurmdb_assoc_rec_t *assoc;
	if (!assoc_mgr_root_assoc->usage->children_list)
		return;
	itr = list_iterator_create(assoc_mgr_root_assoc->usage->children_list);
	while ((assoc = list_next(itr))) {
		if (fair_tree_mode)
			assoc->usage->level_fs = SENTINEL;
		else
			assoc->usage->usage_efctv = SENTINEL;
	}
	list_iterator_destroy(itr);
}

/* Waits until the decay thread's first pass (one assoc_mgr lock hold) is done. */
static int _wait_for_pass(void)
{
	assoc_mgr_lock_t locks = { READ_LOCK, NO_LOCK, NO_LOCK, NO_LOCK,
				   NO_LOCK, NO_LOCK, NO_LOCK };
	int tries;
	List children = assoc_mgr_root_assoc->usage->children_list;
	if (!children || list_is_empty(children))
		return 0;
	for (tries = 0; tries < 20000; tries++) {
		slurmdb_assoc_rec_t *first;
		int done;
		assoc_mgr_lock(&locks);
		first = list_peek(children);
		done = fair_tree_mode ? first->usage->level_fs != SENTINEL :
			first->usage->usage_efctv != SENTINEL;
		assoc_mgr_unlock(&locks);
		if (done)
			return 0;
		usleep(100);
	}
	return -1;
}

static slurmdb_assoc_rec_t *_find_assoc(uint32_t id)
{
	ListIterator itr = list_iterator_create(assoc_mgr_assoc_list);
	slurmdb_assoc_rec_t *assoc;
	while ((assoc = list_next(itr)))
		if (assoc->id == id)
			break;
	list_iterator_destroy(itr);
	return assoc;
}

/* Prints every association as sshare -l gets it (assoc_mgr_get_shares). */
static void _print_tree(void)
{
	shares_response_msg_t resp;
	ListIterator itr;
	assoc_shares_object_t *share;

	memset(&resp, 0, sizeof(shares_response_msg_t));
	assoc_mgr_get_shares(NULL, 0, NULL, &resp);
	printf("tree\n");
	itr = list_iterator_create(resp.assoc_shares_list);
	while ((share = list_next(itr))) {
		slurmdb_assoc_rec_t *assoc = _find_assoc(share->assoc_id);
		double factor, job_factor = -1.0;
		if (fair_tree_mode)
			factor = share->user ? share->fs_factor : -1.0;
		else
			factor = priority_g_calc_fs_factor(
				(long double)share->usage_efctv,
				(long double)share->shares_norm);
		if (share->user && fair_tree_mode) {
			job_factor = assoc->usage->fs_factor;
		} else if (share->user) {
			slurmdb_assoc_rec_t *fs_assoc =
				assoc->shares_raw == SLURMDB_FS_USE_PARENT ?
				assoc->usage->fs_assoc_ptr : assoc;
			job_factor = priority_g_calc_fs_factor(
				fs_assoc->usage->usage_efctv,
				(long double)fs_assoc->usage->shares_norm);
		}
		/* Users' effective usage is computed by assoc_mgr_get_shares
		 * (classic); print the long double the assoc now holds. */
		printf("assoc %u %a %La %La %La %La %a %a\n", share->assoc_id,
		       share->shares_norm, assoc->usage->usage_raw,
		       assoc->usage->usage_norm, assoc->usage->usage_efctv,
		       assoc->usage->level_fs, factor, job_factor);
	}
	list_iterator_destroy(itr);
	printf("end\n");
	fflush(stdout);
}

static void _configure(void)
{
	slurm_conf_t *conf = slurm_conf_lock();
	xfree(conf->priority_type);
	conf->priority_type = xstrdup("priority/multifactor");
	conf->priority_flags = fair_tree_mode ? PRIORITY_FLAGS_FAIR_TREE : 0;
	xfree(conf->accounting_storage_type);
	conf->accounting_storage_type = xstrdup("accounting_storage/slurmdbd");
	conf->priority_decay_hl = 1;
	conf->priority_favor_small = 0;
	conf->priority_max_age = conf->priority_decay_hl;
	conf->priority_reset_period = 0;
	conf->priority_weight_age = 0;
	conf->priority_weight_fs = 10000;
	conf->priority_weight_js = 0;
	conf->priority_weight_part = 0;
	conf->priority_weight_qos = 0;
	/* One pass, at start; the next would come 300 s later. */
	conf->priority_calc_period = 300;
	conf->fs_dampening_factor = 1;
	slurm_conf_unlock();
	xfree(slurm_conf.state_save_location);
	slurm_conf.state_save_location = "/dev/null";
}

static int _run_child(void)
{
	_configure();
	_setup_assoc_list();
	_mark_root_children();
	job_list = list_create(_list_delete_job);
	if (priority_g_init() != SLURM_SUCCESS)
		fatal("failed to initialize priority plugin");
	if (_wait_for_pass())
		fatal("the plugin's fair-share pass did not run");
	_print_tree();
	_exit(0);
}

int main(int argc, char **argv)
{
	log_options_t logopt = LOG_OPTS_STDERR_ONLY;
	int status, got;

	log_init(xbasename(argv[0]), logopt, 0, NULL);
	xfree(slurm_conf.priority_type);
	logopt.prefix_level = 1;
	log_alter(logopt, 0, NULL);
	/* Loads slurm.conf (SLURM_CONF) once, before any fork. */
	slurm_conf_lock();
	slurm_conf_unlock();

	while ((got = _read_tree(stdin)) > 0) {
		pid_t pid;
		fflush(stdout);
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 2;
		}
		if (pid == 0)
			_run_child();
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "harness: tree failed (status %d)\n", status);
			return 1;
		}
	}
	if (got < 0) {
		fprintf(stderr, "harness: malformed input\n");
		return 2;
	}
	return 0;
}
