import { Tenant } from './Tenant.js';
import { Booking } from './Booking.js';
import { BookingStation } from './BookingStation.js';
import { BusinessUnit } from './BusinessUnit.js';
import { Branch } from './Branch.js';
import { VehicleCategory } from './VehicleCategory.js';
import { Vehicle } from './Vehicle.js';
import { Customer } from './Customer.js';
import { Rental } from './Rental.js';
import { Event } from './Event.js';
import { Role } from './Role.js';
import { RoleAssignment } from './RoleAssignment.js';
import { ApiClient } from './ApiClient.js';
import { Setting } from './Setting.js';
import { VehicleCommand } from './VehicleCommand.js';
import { PricingBundle } from './PricingBundle.js';
import { PricingBundleVersion } from './PricingBundleVersion.js';
import { PricingAssignment } from './PricingAssignment.js';
import { VehicleTelemetry } from './VehicleTelemetry.js';
import { IotModule } from './IotModule.js';
import { Task } from './Task.js';
import { VehicleNote } from './VehicleNote.js';
import { VehicleAction } from './VehicleAction.js';
import { RefreshToken } from './RefreshToken.js';
import { OneTimeCode } from './OneTimeCode.js';
import { SignInThrottle } from './SignInThrottle.js';
import { TermsAndConditions } from './TermsAndConditions.js';
import { TermsAcceptance } from './TermsAcceptance.js';
import { UserGroup } from './UserGroup.js';
import { GroupMembership } from './GroupMembership.js';
import { CostCenter } from './CostCenter.js';
import { AppSigningKey } from './AppSigningKey.js';
import { Verification } from './Verification.js';
import { VerificationMedia } from './VerificationMedia.js';
import { PaymentSource } from './PaymentSource.js';
import { CreditRating } from './CreditRating.js';
import { CompatibleBranch } from './CompatibleBranch.js';
import { AreaType } from './AreaType.js';
import { Area } from './Area.js';
import { Station } from './Station.js';
import { PhysicalStation } from './PhysicalStation.js';
import { PhysicalStationSlot } from './PhysicalStationSlot.js';
import { ParkingArea } from './ParkingArea.js';
import { PoiCategory } from './PoiCategory.js';
import { Poi } from './Poi.js';
import { Invoice } from './Invoice.js';
import { InvoiceLine } from './InvoiceLine.js';
import { InvoiceNumberSequence } from './InvoiceNumberSequence.js';
import { Deposit } from './Deposit.js';
import { RentalAuthority } from './RentalAuthority.js';
import { Damage } from './Damage.js';

export {
  Tenant,
  BusinessUnit,
  Branch,
  VehicleCategory,
  Vehicle,
  Customer,
  Rental,
  Event,
  Role,
  RoleAssignment,
  ApiClient,
  Setting,
  VehicleCommand,
  PricingBundle,
  PricingBundleVersion,
  PricingAssignment,
  VehicleTelemetry,
  IotModule,
  Task,
  VehicleNote,
  VehicleAction,
  RefreshToken,
  OneTimeCode,
  SignInThrottle,
  TermsAndConditions,
  TermsAcceptance,
  UserGroup,
  GroupMembership,
  CostCenter,
  AppSigningKey,
  Verification,
  VerificationMedia,
  PaymentSource,
  CreditRating,
  CompatibleBranch,
  AreaType,
  Area,
  Station,
  PhysicalStation,
  PhysicalStationSlot,
  ParkingArea,
  PoiCategory,
  Poi,
  Invoice,
  InvoiceLine,
  InvoiceNumberSequence,
  Deposit,
  RentalAuthority,
  Booking,
  BookingStation,
  Damage,
};
export { TenantScoped, TENANT_FILTER } from './TenantScoped.js';
