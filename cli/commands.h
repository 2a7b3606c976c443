/* The commands of the `resident` tool. Each returns the process exit status:
 * 0 success, 1 failure at run time, 2 bad usage. */
#ifndef RS_CLI_COMMANDS_H
#define RS_CLI_COMMANDS_H

int rs_cmd_info(int argc, char **argv);
int rs_cmd_pipeline(int argc, char **argv);
int rs_cmd_bandwidth(int argc, char **argv);
int rs_cmd_bench(int argc, char **argv);

#endif
