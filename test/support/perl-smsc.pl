#!/usr/bin/perl
# A small SMSC on Net::SMPP (Debian's libnet-smpp-perl): a codec that is not the npm one, for
# testing Sparrow's SMPP client. Usage: perl-smsc.pl RECORD_FILE SYSTEM_ID PASSWORD
#
# Listens on a free loopback port and prints "PORT <n>" on stdout. Accepts binds with the given
# credentials (ESME_RINVPASWD otherwise), answers each submit_sm with an id S<pid>-<n>, appends one line
# per submission to RECORD_FILE (id, source, destination, data_coding, esm_class,
# registered_delivery, short_message in hex; tab-separated), and, when registered_delivery asks
# for one, sends a deliver_sm delivery receipt in the standard text format. A submission whose
# text is "PING" is answered with an inbound deliver_sm "PONG" from its destination.
use strict;
use warnings;
use Net::SMPP;
use IO::Handle;
use POSIX qw(strftime);

my ($record_file, $system_id, $password) = @ARGV;
die "usage: perl-smsc.pl RECORD_FILE SYSTEM_ID PASSWORD\n" unless defined $password;

my $listen = Net::SMPP->new_listen('127.0.0.1', port => 0, smpp_version => 0x34, listen => 5)
  or die "cannot listen: $!";
STDOUT->autoflush(1);
print 'PORT ', $listen->sockport, "\n";

open(my $rec, '>>', $record_file) or die "cannot write $record_file: $!";
$rec->autoflush(1);
my $next_id = 0;
my $prefix = 'S';

# One child process per connection (a refused bind must not wait behind a bound one); each exits
# when its connection closes.
$SIG{CHLD} = 'IGNORE';
while (1) {
  my $c = $listen->accept or next;
  my $pid = fork;
  die "fork: $!" unless defined $pid;
  if ($pid == 0) {
    close $listen;
    serve($c);
    exit 0;
  }
  close $c;
}

sub serve {
  my ($c) = @_;
  my $bound = 0;
  $prefix = "S$$-";
  while (1) {
    my $pdu = $c->read_pdu() or return;
    my $cmd = $pdu->{cmd};
    if ($cmd == Net::SMPP::CMD_bind_transceiver || $cmd == Net::SMPP::CMD_bind_transmitter
        || $cmd == Net::SMPP::CMD_bind_receiver) {
      my $ok = ($pdu->{system_id} // '') eq $system_id && ($pdu->{password} // '') eq $password;
      my $resp = $cmd == Net::SMPP::CMD_bind_transceiver ? 'bind_transceiver_resp'
               : $cmd == Net::SMPP::CMD_bind_transmitter ? 'bind_transmitter_resp'
               : 'bind_receiver_resp';
      $c->$resp(seq => $pdu->{seq}, system_id => 'PERLSMSC', status => $ok ? 0 : 0x0E);
      $bound = $ok;
    } elsif ($cmd == Net::SMPP::CMD_enquire_link) {
      $c->enquire_link_resp(seq => $pdu->{seq});
    } elsif ($cmd == Net::SMPP::CMD_unbind) {
      $c->unbind_resp(seq => $pdu->{seq});
      return;
    } elsif ($cmd == Net::SMPP::CMD_submit_sm) {
      unless ($bound) {
        $c->submit_sm_resp(seq => $pdu->{seq}, message_id => '', status => 0x04);
        next;
      }
      my $id = sprintf('%s%06d', $prefix, ++$next_id);
      my $sm = $pdu->{short_message} // '';
      # Record before answering: the test reads the file as soon as the response arrives.
      print $rec join("\t", $id, $pdu->{source_addr}, $pdu->{destination_addr}, $pdu->{data_coding},
        $pdu->{esm_class}, $pdu->{registered_delivery}, unpack('H*', $sm)), "\n";
      $c->submit_sm_resp(seq => $pdu->{seq}, message_id => $id);
      if (($pdu->{registered_delivery} // 0) & 1) {
        my $now = strftime('%y%m%d%H%M', gmtime);
        $c->deliver_sm(
          async => 1,
          source_addr_ton => 1, source_addr_npi => 1, source_addr => $pdu->{destination_addr},
          dest_addr_ton => 1, dest_addr_npi => 1, destination_addr => $pdu->{source_addr},
          esm_class => 0x04,
          short_message => "id:$id sub:001 dlvrd:001 submit date:$now done date:$now stat:DELIVRD err:000 text:",
        );
      }
      if ($sm eq 'PING') {
        $c->deliver_sm(
          async => 1,
          source_addr_ton => 1, source_addr_npi => 1, source_addr => $pdu->{destination_addr},
          dest_addr_ton => 1, dest_addr_npi => 1, destination_addr => $pdu->{source_addr},
          esm_class => 0, data_coding => 0, short_message => 'PONG',
        );
      }
    }
    # deliver_sm_resp, generic_nack and the rest need no answer here.
  }
}
